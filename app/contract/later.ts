/**
 * Input a use case reads only once it has authorized. An HTTP route passes its body as a
 * function that reads and parses it, so an identity that may not act is refused (403) before
 * a byte of the body is read or checked: spec §2 puts authorization first, and a refusal that
 * depends on nothing the caller sent reveals nothing and costs nothing. An MCP tool passes the
 * parse of its arguments the same way; in-process callers (the CLI, tests) pass the value.
 * `T` is never a function.
 */
export type Later<T> = T | (() => Promise<T>);

/** The value, read now (the use case calls this after its capability check). */
export async function readLater<T>(value: Later<T>): Promise<T> {
  return typeof value === 'function' ? (value as () => Promise<T>)() : value;
}
