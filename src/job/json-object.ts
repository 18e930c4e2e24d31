// The one loose reading of stored JSON: a job (valid or not), a dead entry, a process's info.

/** The members of `text` when it is a JSON object; undefined for anything else (invalid JSON, an array, a number). */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The `jid` member of stored JSON as text: '' when there is none (or it is neither a string nor a number). */
export function jidOf(text: string): string {
  const jid = jsonObject(text)?.jid;
  return typeof jid === 'string' || typeof jid === 'number' ? String(jid) : '';
}

/** A count read from a payload (`retry_count`, `nacks`): a whole number, or 0 (missing, null, not whole). */
export function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}
