/** A JSON object. */
export type Obj = Record<string, unknown>;
