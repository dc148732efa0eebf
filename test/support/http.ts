/** Small JSON helpers for the HTTP tests. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; user?: string; body?: unknown; raw?: string } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.user) headers['Remote-User'] = opts.user;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  } else if (opts.raw !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = opts.raw;
  }
  const res = await fetch(new URL(path, base), { method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export async function text(url: string): Promise<string> {
  const res = await fetch(url);
  return `${res.status} ${await res.text()}`;
}
