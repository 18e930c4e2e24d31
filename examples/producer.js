// producer.js — the test nexq while nexq/testing runs a handler, else one enqueuer for the process
const { currentTestNexq } = require('nexq/testing');
let real;
module.exports = async function producer() {
  return currentTestNexq() ?? (real ??= require('nexq').Nexq.start({ mode: 'enqueuer' }));
};
