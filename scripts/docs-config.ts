// Writes the options table of docs/configuration.md from config/ (`npm run docs:config`):
// each option's description and type from its declaration in config/defaults.ts (the JSDoc above
// it in NexqOptions, the one place an option is described), its default from the expression in
// `defaults()`, and its environment variables from config/load.ts. Only config/ is read or
// imported: it is the bottom layer (docs/internals.md, "Layers"). test/docs/ fails when the
// table in docs/configuration.md is not what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { defaults } from '../config/defaults';
import { envVariables } from '../config/load';

/** dist/scripts -> the repository root (the sources are read from there, not from dist). */
export const repoRoot = path.resolve(__dirname, '..', '..');
export const configurationDoc = path.join(repoRoot, 'docs', 'configuration.md');

const BEGIN = '<!-- begin options table: written by `npm run docs:config` from config/defaults.ts; edit there -->';
const END = '<!-- end options table -->';

/** The files whose declarations a type may name (an alias or interface declared there is spelt out). */
const TYPE_SOURCES = ['config/defaults.ts', 'config/redis-options.ts'];

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.ES2022, true);
}

/** The JSDoc text of a declaration on one line, or undefined when it has none. */
function docOf(node: ts.Node): string | undefined {
  const text = ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
    .join(' ');
  return text.trim() === '' ? undefined : text.replace(/\s+/g, ' ').trim();
}

/** Type aliases and interfaces declared in TYPE_SOURCES, by name. */
function typeDeclarations(): Map<string, ts.TypeAliasDeclaration | ts.InterfaceDeclaration> {
  const declarations = new Map<string, ts.TypeAliasDeclaration | ts.InterfaceDeclaration>();
  for (const file of TYPE_SOURCES) {
    for (const statement of parse(file).statements) {
      if (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement))
        declarations.set(statement.name.text, statement);
    }
  }
  return declarations;
}

/** A type as a reader needs it: aliases replaced by what they stand for, interfaces by `{ field, field? }`. */
function renderType(node: ts.TypeNode, declarations: ReturnType<typeof typeDeclarations>): string {
  const render = (n: ts.TypeNode): string => renderType(n, declarations);
  if (ts.isUnionTypeNode(node)) return node.types.map(render).join(' | ');
  if (ts.isArrayTypeNode(node)) {
    const element = render(node.elementType);
    return ts.isUnionTypeNode(node.elementType) ? `(${element})[]` : `${element}[]`;
  }
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText();
    const declaration = declarations.get(name);
    if (node.typeArguments) return `${name}<${node.typeArguments.map(render).join(', ')}>`;
    if (declaration && ts.isTypeAliasDeclaration(declaration)) return render(declaration.type);
    if (declaration) {
      const inherited = (declaration.heritageClauses ?? []).flatMap((clause) =>
        clause.types.map((type) => `...${type.getText()}`),
      );
      const fields = declaration.members
        .filter(ts.isPropertySignature)
        .map((member) => `${member.name.getText()}${member.questionToken ? '?' : ''}`);
      return `{ ${[...inherited, ...fields].join(', ')} }`;
    }
  }
  return node.getText();
}

export interface OptionRow {
  option: string;
  type: string;
  default: string;
  env: string[];
  description: string;
}

/** One row per option of `defaults()`, in the order NexqOptions declares them. */
export function optionRows(): OptionRow[] {
  const source = parse('config/defaults.ts');
  const options = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'NexqOptions',
  );
  const defaultsFn = source.statements.find(
    (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'defaults',
  );
  if (!options || !defaultsFn) throw new Error('config/defaults.ts: NexqOptions or defaults() not found');
  const returned = defaultsFn.body?.statements.find(ts.isReturnStatement)?.expression;
  if (!returned || !ts.isObjectLiteralExpression(returned))
    throw new Error('config/defaults.ts: defaults() must return an object literal');
  const defaultText = new Map(
    returned.properties
      .filter(ts.isPropertyAssignment)
      .map((p) => [p.name.getText(), p.initializer.getText()] as const),
  );
  const declarations = typeDeclarations();
  const env = envVariables();
  const rows = options.members.filter(ts.isPropertySignature).map((member): OptionRow => {
    const option = member.name.getText();
    const description = docOf(member);
    const initial = defaultText.get(option);
    if (description === undefined) throw new Error(`config/defaults.ts: option ${option} has no /** description */`);
    if (initial === undefined) throw new Error(`config/defaults.ts: option ${option} has no entry in defaults()`);
    if (!member.type) throw new Error(`config/defaults.ts: option ${option} has no type`);
    return {
      option,
      type: renderType(member.type, declarations),
      default: initial,
      env: env[option as keyof typeof env],
      description,
    };
  });
  const known = Object.keys(defaults()).sort();
  const listed = rows.map((r) => r.option).sort();
  if (known.join() !== listed.join())
    throw new Error(
      `config/defaults.ts: NexqOptions declares ${listed.join(', ')} but defaults() has ${known.join(', ')}`,
    );
  return rows;
}

/** Text in a table cell: a `|` would end the cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

export function optionsTable(rows = optionRows()): string {
  const lines = rows.map((row) =>
    [
      `\`${row.option}\``,
      `\`${cell(row.type)}\``,
      row.default === 'undefined' ? 'none' : `\`${cell(row.default)}\``,
      row.env.map((name) => `\`${name}\``).join(', '),
      cell(row.description),
    ].join(' | '),
  );
  return ['| option | type | default | environment | description |', '|---|---|---|---|---|', ...lines]
    .map((line) => (line.startsWith('|') ? line : `| ${line} |`))
    .join('\n');
}

/** `doc` with the text between its table markers replaced by the table config/ gives today. */
export function withOptionsTable(doc: string, table = optionsTable()): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/configuration.md: the markers ${BEGIN} and ${END} are missing`);
  return `${doc.slice(0, begin + BEGIN.length)}\n${table}\n${doc.slice(end)}`;
}

if (require.main === module) {
  const before = readFileSync(configurationDoc, 'utf8');
  const after = withOptionsTable(before);
  if (after === before) console.log('docs/configuration.md is up to date');
  else {
    writeFileSync(configurationDoc, after);
    console.log('docs/configuration.md: options table rewritten from config/defaults.ts');
  }
}
