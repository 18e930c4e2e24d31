// jobs/IndexDocument.js — one bulk request for up to 100 documents
exports.chunk = { size: 100, waitMs: 50 };

exports.performMany = async function (argsList) {
  const body = argsList.map(([doc]) => JSON.stringify(doc)).join('\n');
  const response = await fetch(`${process.env.SEARCH_URL}/bulk`, { method: 'POST', body });
  const { items } = await response.json();
  // One entry per job, in order: its result, or an Error that fails that job alone.
  return items.map((item) => (item.error ? new Error(item.error.reason) : item.id));
};
