// The `--config` file's options: JSON, or YAML by its extension, and an object of options; an error
// names the file and, for YAML, the line and column.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './config-error';
import type { NexqConfig } from './defaults';

const YAML_EXTENSIONS = ['.yaml', '.yml'];

/** Reads `file`: YAML when it ends in .yaml or .yml, JSON otherwise; the options must be an object. */
export function readConfigFile(file: string): NexqConfig {
  const yaml = YAML_EXTENSIONS.includes(path.extname(file).toLowerCase());
  const format = yaml ? 'YAML' : 'JSON';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError('--config', `a readable ${format} file`, `${file} (${(err as NodeJS.ErrnoException).code})`);
  }
  let value: unknown;
  try {
    value = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError(
      '--config',
      `valid ${format}`,
      `${file}${yaml ? yamlErrorAt(err) : `: ${(err as Error).message}`}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('--config', `a ${format} object of options`, file);
  }
  return value;
}

/** " line 3, column 1: Map keys must be unique", from the yaml package's error, on one line. */
function yamlErrorAt(err: unknown): string {
  const e = err as { message?: string; linePos?: Array<{ line: number; col: number }> };
  const message = String(e.message ?? err)
    .split('\n')[0]
    .replace(/ at line \d+, column \d+:?$/, '');
  const at = e.linePos?.[0];
  return at ? ` line ${at.line}, column ${at.col}: ${message}` : `: ${message}`;
}
