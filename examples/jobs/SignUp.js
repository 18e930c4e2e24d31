// jobs/SignUp.js — enqueues a follow-up job through producer.js
const producer = require('../producer');
exports.perform = async function (userId, email) {
  await (await producer()).enqueue('mail', 'WelcomeEmail', [email, userId]);
};
