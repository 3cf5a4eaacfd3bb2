/**
 * The floors of lib/'s import graph, for a closing note: a file with no import in lib/ stands on floor 0, any
 * other one floor above the highest file it imports (a file circle counts as one file, and is listed).
 *   npx depcruise lib --config .dependency-cruiser.cjs --output-type json | node scripts/import-floors.mjs [--list]
 * Written by hand: depcruise prints the graph and its circles but no longest path through it.
 */
import { readFileSync } from "node:fs";

const cruise = JSON.parse(readFileSync(0, "utf8"));
const imports = new Map(
  cruise.modules
    .filter((module) => module.source.startsWith("lib/"))
    .map((module) => [
      module.source,
      [...new Set(module.dependencies.map((d) => d.resolved).filter((path) => path.startsWith("lib/")))],
    ]),
);

// Tarjan's strongly connected components: each file circle becomes one node.
const circleOf = new Map();
const circles = [];
const order = new Map();
const low = new Map();
const stack = [];
let next = 0;
function visit(file) {
  order.set(file, next);
  low.set(file, next++);
  stack.push(file);
  for (const target of imports.get(file) ?? []) {
    if (!imports.has(target)) continue;
    if (!order.has(target)) {
      visit(target);
      low.set(file, Math.min(low.get(file), low.get(target)));
    } else if (!circleOf.has(target)) low.set(file, Math.min(low.get(file), order.get(target)));
  }
  if (low.get(file) !== order.get(file)) return;
  const members = [];
  let member;
  do {
    member = stack.pop();
    circleOf.set(member, circles.length);
    members.push(member);
  } while (member !== file);
  circles.push(members);
}
for (const file of imports.keys()) if (!order.has(file)) visit(file);

// Tarjan finishes a component after every component it reaches, so one pass in that order sets the floors.
const floors = circles.map(() => 0);
circles.forEach((members, index) => {
  for (const file of members)
    for (const target of imports.get(file) ?? []) {
      const below = circleOf.get(target);
      if (below !== undefined && below !== index) floors[index] = Math.max(floors[index], floors[below] + 1);
    }
});

const top = Math.max(...floors);
console.log(`${imports.size} files, ${top + 1} floors (0-${top})`);
for (const members of circles.filter((members) => members.length > 1))
  console.log(`file circle: ${members.sort().join(" <-> ")}`);
if (process.argv.includes("--list"))
  for (let floor = 0; floor <= top; floor++) {
    const files = circles.flatMap((members, index) => (floors[index] === floor ? members : []));
    console.log(`floor ${floor} (${files.length}): ${files.sort().join(" ")}`);
  }
