/**
 * Waits before one step of the work a process does in the background once it listens (validators compiled
 * ahead of their first use, handler groups and libraries loaded): a turn of the event loop, then, while
 * requests are in flight, until none is or `boundMs` has passed. Requests come first: a process's first
 * request arrives as its warm-up begins, and would otherwise wait for a step at each of its awaits (each
 * database round trip on PostgreSQL). The bound lets the warm-up end under steady traffic all the same.
 */
export async function warmUpTurn(busy: () => boolean, idle: () => Promise<void>, boundMs: number): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (!busy()) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([idle(), new Promise<void>((resolve) => { timer = setTimeout(resolve, boundMs); })]);
  } finally {
    clearTimeout(timer);
  }
}
