// Node < 22 has no fs.globSync, which the suite imports for its summary of saved results only:
// this module is node:fs plus a globSync enough for its one pattern ("**/checks.json").
import fs from "node:fs";
import path from "node:path";
export * from "node:fs";
export default fs;
export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const name = pattern.split("/").pop();
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(cwd, dir), { withFileTypes: true })) {
      const rel = dir ? path.join(dir, entry.name) : entry.name;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name === name) out.push(rel);
    }
  };
  if (fs.existsSync(cwd)) walk("");
  return out;
}
