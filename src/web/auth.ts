// HTTP basic auth for the dashboard. Both the user name and the password are compared in constant
// time (SHA-256 digests of equal length through timingSafeEqual), so a response's timing says
// nothing about how much of either was right.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface Credentials {
  username: string;
  password: string;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export class BasicAuth {
  private readonly username: Buffer;
  private readonly password: Buffer;

  constructor(credentials: Credentials) {
    this.username = digest(credentials.username);
    this.password = digest(credentials.password);
  }

  /** True when `req` carries the right `Authorization: Basic ...` header. */
  allows(req: IncomingMessage): boolean {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
    const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? '' : decoded.slice(0, colon);
    const pass = colon < 0 ? '' : decoded.slice(colon + 1);
    // Both comparisons always run: no early exit on a wrong user name.
    const userOk = timingSafeEqual(digest(user), this.username);
    const passOk = timingSafeEqual(digest(pass), this.password);
    return match !== null && colon >= 0 && userOk && passOk;
  }

  /** The header that makes a browser ask for credentials. */
  static readonly challenge = 'Basic realm="nexq", charset="UTF-8"';
}
