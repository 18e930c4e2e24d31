// jobs/ChargeCard.js — a retry policy of its own and a hook for when it gives up
class CardDeclined extends Error {}

exports.perform = async function (orderId, cents) {
  if (cents > 1_000_000) throw new CardDeclined(`order ${orderId}: over the limit`);
  console.log(`${this.jid}: charged ${cents} for order ${orderId}`);
};

exports.retry = {
  max: 5,
  // Runs on the job's thread: seconds until the retry, 'kill' (to dead now) or 'discard'.
  backoff: (retryCount, error) => (error instanceof CardDeclined ? 'kill' : 30 * 2 ** retryCount),
};

exports.exhausted = async function (args, error) {
  console.log(`${this.jid}: gave up on order ${args[0]}: ${error.message}`);
};
