/**
 * The project's import graph, read from the source text, and the checks run on it by
 * test/architecture.test.ts: import cycles and the layer rules of docs/architecture.md.
 * Every relative import counts, `import type` included: a type-only arrow is still an arrow a
 * reader follows, and it is how layers quietly start to lean on each other.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** Both paths are relative to the project root, with forward slashes. */
  from: string;
  to: string;
  /** As written in the source. */
  specifier: string;
  line: number;
}

export interface ImportGraph {
  files: string[];
  /** Per file, its imports of other project files (packages and node: built-ins are left out). */
  edges: Map<string, ImportEdge[]>;
  /** Relative imports that name no file: reported, since a wrong path would hide an arrow. */
  unresolved: ImportEdge[];
}

const toPosix = (p: string) => p.split(path.sep).join('/');

function listTypeScript(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTypeScript(full));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** `./x.js` names `./x.ts` (NodeNext style); a folder names its index.ts. */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c) && statSync(c).isFile());
}

/**
 * Reads every .ts file under `dirs` (relative to `root`). Static imports, `export … from`,
 * `import type`, dynamic `import('…')` with a literal and `typeof import('…')` all count.
 */
export function readImportGraph(root: string, dirs: string[]): ImportGraph {
  const files = dirs.flatMap((d) => listTypeScript(path.join(root, d))).sort();
  const edges = new Map<string, ImportEdge[]>();
  const unresolved: ImportEdge[] = [];
  for (const file of files) {
    const from = toPosix(path.relative(root, file));
    const source = readFileSync(file, 'utf8');
    const info = ts.preProcessFile(source, true, true);
    const list: ImportEdge[] = [];
    for (const imported of info.importedFiles) {
      const specifier = imported.fileName;
      if (!specifier.startsWith('.')) continue;
      const line = source.slice(0, imported.pos).split('\n').length;
      const target = resolveSpecifier(file, specifier);
      if (!target) {
        unresolved.push({ from, to: specifier, specifier, line });
        continue;
      }
      list.push({ from, to: toPosix(path.relative(root, target)), specifier, line });
    }
    edges.set(from, list);
  }
  return { files: files.map((f) => toPosix(path.relative(root, f))), edges, unresolved };
}

/**
 * Every import cycle, one per strongly connected component (Tarjan), each given as a chain of
 * files that starts and ends with the same file, following real import arrows.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const next = (file: string) => (graph.edges.get(file) ?? []).map((e) => e.to).filter((t) => graph.edges.has(t));

  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of graph.files) {
    if (index.has(start)) continue;
    const work: Array<{ file: string; children: string[]; i: number }> = [];
    const visit = (file: string) => {
      index.set(file, counter);
      low.set(file, counter);
      counter += 1;
      stack.push(file);
      onStack.add(file);
      work.push({ file, children: next(file), i: 0 });
    };
    visit(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.children.length) {
        const child = frame.children[frame.i++]!;
        if (!index.has(child)) visit(child);
        else if (onStack.has(child)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(child)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.file);
        const selfLoop = next(frame.file).includes(frame.file);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.map((component) => cycleThrough(graph, component));
}

/** A shortest way back to the component's first file, found breadth-first inside the component. */
function cycleThrough(graph: ImportGraph, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const { to } of graph.edges.get(file) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const chain = [start];
        for (let at: string | undefined = file; at !== undefined && at !== start; at = cameFrom.get(at)) chain.splice(1, 0, at);
        chain.push(start);
        return chain;
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  return [...component, start];
}

export interface LayerRule {
  /** Says, in a sentence, what the rule protects; shown with every violation. */
  name: string;
  /** Which importing files the rule is about. */
  appliesTo: (from: string) => boolean;
  /** Answers why the arrow is not allowed, or undefined when it is. */
  forbids: (to: string, from: string) => boolean;
}

export interface Violation {
  rule: string;
  edge: ImportEdge;
}

export function checkRules(graph: ImportGraph, rules: LayerRule[]): Violation[] {
  const violations: Violation[] = [];
  for (const [from, list] of graph.edges) {
    for (const rule of rules) {
      if (!rule.appliesTo(from)) continue;
      for (const edge of list) if (rule.forbids(edge.to, from)) violations.push({ rule: rule.name, edge });
    }
  }
  return violations;
}

/**
 * The graph of larger units (modules): an arrow from unit A to unit B for every file of A that
 * imports a file of B. `unitOf` answers undefined for files left out. Each arrow keeps, as its
 * specifier, the first file import that makes it, so a cycle can be explained file by file.
 */
export function collapse(graph: ImportGraph, unitOf: (file: string) => string | undefined): ImportGraph {
  const edges = new Map<string, ImportEdge[]>();
  for (const file of graph.files) {
    const from = unitOf(file);
    if (from === undefined) continue;
    const list = edges.get(from) ?? edges.set(from, []).get(from)!;
    for (const edge of graph.edges.get(file) ?? []) {
      const to = unitOf(edge.to);
      if (to === undefined || to === from || list.some((e) => e.to === to)) continue;
      list.push({ from, to, specifier: `${edge.from}:${edge.line} imports ${edge.to}`, line: edge.line });
    }
  }
  return { files: [...edges.keys()].sort(), edges, unresolved: [] };
}

/** A cycle, one arrow a line, each with the import that makes it. */
export function formatCycle(graph: ImportGraph, chain: string[]): string {
  const lines = [chain[0]!];
  for (let i = 1; i < chain.length; i++) {
    const edge = (graph.edges.get(chain[i - 1]!) ?? []).find((e) => e.to === chain[i]);
    lines.push(`→ ${chain[i]}${edge ? `   (${edge.specifier.includes(' imports ') ? edge.specifier : `imported on line ${edge.line} as '${edge.specifier}'`})` : ''}`);
  }
  return lines.join('\n    ');
}

export function formatViolation({ rule, edge }: Violation): string {
  return `${edge.from}:${edge.line} imports '${edge.specifier}' (${edge.to})\n    rule: ${rule}`;
}

export interface ForwardReference {
  /** The const whose initializer names a later one. */
  user: string;
  /** The const it names, declared after it. */
  later: string;
  line: number;
}

/**
 * The names of the functions declared at the top level of `file`: in a composition root that
 * builds by area, the root and each of its builders, every one checked by findForwardReferences.
 */
export function topLevelFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((node) => (ts.isFunctionDeclaration(node) && node.name ? [node.name.text] : []));
}

/** The names a declaration binds: `a` in `const a = …`, `a` and `c` in `const { a, b: c } = …`. */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : boundNames(element.name)));
}

/**
 * In the body of `functionName` in `file`, every const whose initializer (a closure included)
 * names a const declared after it: in a composition root, a service handed a reference to one
 * built later, which only works because the call comes at request time. A destructuring const
 * (`const { a, b } = buildArea(…)`) declares each name it binds, reported as `{ a, b }`.
 */
export function findForwardReferences(file: string, functionName: string): ForwardReference[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let body: ts.Block | undefined;
  source.forEachChild((node) => {
    if (ts.isFunctionDeclaration(node) && node.name?.text === functionName) body = node.body;
  });
  if (!body) throw new Error(`${file} has no function ${functionName}`);
  const order = new Map<string, number>();
  const declarations: Array<{ name: string; initializer: ts.Expression }> = [];
  for (const statement of body.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!declaration.initializer) continue;
      const names = boundNames(declaration.name);
      for (const name of names) order.set(name, declarations.length);
      declarations.push({ name: ts.isIdentifier(declaration.name) ? declaration.name.text : `{ ${names.join(', ')} }`, initializer: declaration.initializer });
    }
  }
  const found: ForwardReference[] = [];
  declarations.forEach(({ name, initializer }, index) => {
    const visit = (node: ts.Node): void => {
      // `{ accounts: … }` names a property, not the const.
      const isPropertyName = ts.isPropertyAssignment(node.parent) && node.parent.name === node;
      const isMemberName = ts.isPropertyAccessExpression(node.parent) && node.parent.name === node;
      if (ts.isIdentifier(node) && !isPropertyName && !isMemberName) {
        const at = order.get(node.text);
        if (at !== undefined && at > index && !found.some((f) => f.user === name && f.later === node.text)) {
          found.push({ user: name, later: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
        }
      }
      node.forEachChild(visit);
    };
    visit(initializer);
  });
  return found;
}
