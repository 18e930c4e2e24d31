// jobs/HardWorker.js — the file name is the class name
exports.perform = async function (name, count) {
  console.log(`${this.jid}: working hard for ${name}, ${count} times`);
};
