/** An API call answered with an error: its status decides what the reader answers. */
export class ApiFailure extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The data of a client call, or an ApiFailure with the API's status and message. */
export async function data<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const result = await promise;
  if (result.data === undefined) {
    const message = (result.error as { error?: { message?: string } } | undefined)?.error?.message ?? result.response.statusText;
    throw new ApiFailure(result.response.status, message);
  }
  return result.data;
}
