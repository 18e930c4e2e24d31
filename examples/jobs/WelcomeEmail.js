// jobs/WelcomeEmail.js
exports.perform = async function (email, userId) {
  console.log(`${this.jid}: welcome mail to ${email} (user ${userId ?? 'unknown'})`);
};
