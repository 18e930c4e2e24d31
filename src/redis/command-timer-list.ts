// Makes ioredis' per-command timeout (`commandTimeout`) cheap. ioredis arms a timer for each
// command and clears it at the reply. Node keeps its timers in one list per duration and drops a
// list (and reschedules its libuv timer) when its last timer is cleared, so with one command in
// flight at a time, as in a loop of awaited enqueues, every command created and dropped that list:
// more work than the command's own JavaScript. One idle timer of the same duration that stays
// keeps the list, and arming and clearing a command's timer become a link and an unlink. The
// timeout itself is unchanged: each command still fails when its own timer fires.

const keepers = new Map<number, NodeJS.Timeout>();

/** Keeps Node's timer list of `ms` alive for this process (a no-op interval, unref'd). */
export function keepCommandTimerList(ms: number): void {
  if (keepers.has(ms)) return;
  // unref: it never keeps the process alive, and the list stays whether a timer is ref'd or not.
  keepers.set(ms, setInterval(() => {}, ms).unref());
}
