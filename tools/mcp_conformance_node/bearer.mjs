// The Authorization header packc serve --http requires ($PACKC_MCP_BEARER), added unless the
// caller set one: withBearer for fetch/undici header lists, withBearerObject for node:http options.
export function withBearer(headers) {
  const token = process.env.PACKC_MCP_BEARER;
  const out = new Headers(headers ?? undefined);
  if (token && !out.has("authorization")) out.set("authorization", `Bearer ${token}`);
  return out;
}

export function withBearerObject(headers) {
  const token = process.env.PACKC_MCP_BEARER;
  const out = { ...(headers ?? {}) };
  if (token && !Object.keys(out).some((name) => name.toLowerCase() === "authorization")) {
    out.Authorization = `Bearer ${token}`;
  }
  return out;
}
