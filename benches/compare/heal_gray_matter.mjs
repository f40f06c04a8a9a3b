// heal with gray-matter: what `ContextMemory::heal` does, the way a user would write it
// in Node — list a namespace directory, parse every entity file's frontmatter, build the
// `_index.md` table and write it atomically (temp file, fsync, rename, fsync of the
// directory).
//
// Usage: node heal_gray_matter.mjs NAMESPACE_DIR NAMESPACE RUNS
// Prints the median milliseconds of one heal (start-up excluded). Run with
// NODE_PATH pointing at the node_modules that holds gray-matter.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.join(process.env.NODE_PATH ?? ".", "x.js"));
const matter = require("gray-matter");

const HEADER = "| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n";

const cell = (text) => String(text).replaceAll("|", "\\|");

function summaryOf(body) {
  for (const line of body.split("\n")) {
    const t = line.trim();
    if (t) return t.slice(0, 100);
  }
  return "";
}

function heal(nsDir, namespace) {
  const rows = [];
  for (const name of fs.readdirSync(nsDir).sort()) {
    if (!name.endsWith(".md") || name.startsWith(".") || name === "_index.md") continue;
    let file;
    try {
      // Options given: gray-matter then parses each time instead of answering from its
      // cache of earlier inputs (which would make every run after the first free).
      file = matter(fs.readFileSync(path.join(nsDir, name), "utf8"), {});
    } catch (error) {
      console.error(`${name}: ${error.message}`);
      continue;
    }
    const m = file.data;
    const tags = m.tags ?? [];
    rows.push([
      String(m.entity_name),
      `| ${cell(m.entity_name)} | ${cell(m.category)} | ${cell(summaryOf(file.content))} | ${cell(tags.join(", "))} | ${cell(m.status)} | ${name} |\n`,
    ]);
  }
  rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const text =
    `# Index: ${namespace}\n\n> Last updated: 2026-04-03T10:00:00Z\n\n${HEADER}` +
    rows.map((r) => r[1]).join("");
  const target = path.join(nsDir, "_index.md");
  const temp = `${target}.tmp`;
  const fd = fs.openSync(temp, "w");
  fs.writeSync(fd, text);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(temp, target);
  const dir = fs.openSync(nsDir, "r");
  fs.fsyncSync(dir);
  fs.closeSync(dir);
  return rows.length;
}

const [nsDir, namespace, runs] = process.argv.slice(2);
const times = [];
for (let i = 0; i < Math.max(Number(runs), 1); i++) {
  const start = process.hrtime.bigint();
  heal(nsDir, namespace);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)].toFixed(3));
