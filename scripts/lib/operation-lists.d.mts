// Types of operation-lists.mjs, for the TypeScript that reads the lists (the server's placement gate).
export interface ListedOperation {
  /** Lower case, as OpenAPI writes it: `get`. */
  method: string;
  path: string;
  operationId: string;
}
export declare const OPERATION_LISTS: { seed: string; additions: string; public: string };
export declare function readOperationList(file: string): ListedOperation[];
