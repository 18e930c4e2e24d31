// The one error a bad option raises: which key, what it expects, and what it got.
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly key: string, expected: string, got: unknown) {
    super(`invalid config: ${key} must be ${expected} (got ${show(got)})`);
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
