// The one loose reading of stored JSON: a job (valid or not), a dead entry, a process's info.

/** The members of `text` when it is a JSON object; undefined for anything else (invalid JSON, an array, a number). */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
