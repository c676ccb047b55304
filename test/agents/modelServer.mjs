// A scripted model on 127.0.0.1 for the real agents: Anthropic Messages (SSE) for Claude Code and the
// OpenAI Responses API (SSE) for Codex. Each test queues replies; every request body is recorded.
// A reply: { text } or { tool: { name, input } } (Claude Code) / { call: { name, arguments } } (Codex),
// or a function (body) => reply, to pick a tool by what the agent offered. `usage` is what the test wants
// the agent to see: { input, output, cacheRead, cacheCreation }.
import http from 'node:http';

export async function startModelServer() {
  /** Every request: { path, body } (body parsed when JSON). */
  const requests = [];
  /** Replies for the agent's main turns (requests that offer tools), in order. */
  let queue = [];
  let usage = { input: 1000, output: 50, cacheRead: 0, cacheCreation: 0 };
  let seq = 0;

  const next = (body) => {
    const r = queue.length ? queue.shift() : { text: 'Done.' };
    return typeof r === 'function' ? r(body) : r;
  };
  const isMainTurn = (body) => Array.isArray(body?.tools) && body.tools.length > 0;

  function sse(res, events) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
    for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    res.end();
  }

  function anthropic(body, res) {
    const reply = isMainTurn(body) ? next(body) : { text: 'ok' };
    const id = `msg_${++seq}`;
    const u = {
      input_tokens: usage.input, output_tokens: usage.output,
      cache_read_input_tokens: usage.cacheRead, cache_creation_input_tokens: usage.cacheCreation,
    };
    const block = reply.tool
      ? { type: 'tool_use', id: `toolu_${seq}`, name: reply.tool.name, input: reply.tool.input }
      : { type: 'text', text: reply.text };
    const stop = reply.tool ? 'tool_use' : 'end_turn';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content: [block], stop_reason: stop, stop_sequence: null, usage: u }));
      return;
    }
    const events = [['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...u, output_tokens: 1 } } }]];
    if (reply.tool) {
      events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.tool.input) } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text } }]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
    events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } }]);
    events.push(['message_stop', { type: 'message_stop' }]);
    sse(res, events);
  }

  function responses(body, res) {
    const reply = isMainTurn(body) ? next(body) : { text: 'ok' };
    const id = `resp_${++seq}`;
    // { item }: any other output item as it is (a tool_search_call, …).
    const item = reply.item ? { id: `it_${seq}`, ...reply.item } : reply.call
      ? { type: 'function_call', id: `fc_${seq}`, call_id: `call_${seq}`, name: reply.call.name, arguments: JSON.stringify(reply.call.arguments), status: 'completed', ...(reply.call.namespace ? { namespace: reply.call.namespace } : {}) }
      : { type: 'message', id: `msg_${seq}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] };
    const u = {
      input_tokens: usage.input + usage.cacheRead, input_tokens_details: { cached_tokens: usage.cacheRead },
      output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input + usage.cacheRead + usage.output,
    };
    const events = [
      ['response.created', { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } }],
      ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: reply.item ? item : reply.call ? { ...item, arguments: '' } : { ...item, content: [] } }],
    ];
    if (!reply.call && !reply.item) events.push(['response.output_text.delta', { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: reply.text }]);
    events.push(['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }]);
    events.push(['response.completed', { type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage: u } }]);
    sse(res, events);
  }

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = raw;
      try { body = raw ? JSON.parse(raw) : null; } catch { /* not JSON */ }
      const url = (req.url ?? '').split('?')[0];
      requests.push({ method: req.method, path: url, body });
      const json = (status, v) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(v)); };
      if (req.method === 'POST' && url.endsWith('/messages/count_tokens')) return json(200, { input_tokens: usage.input });
      if (req.method === 'POST' && url.endsWith('/messages')) return anthropic(body ?? {}, res);
      if (req.method === 'POST' && url.endsWith('/responses')) return responses(body ?? {}, res);
      if (url.endsWith('/models')) return json(200, { object: 'list', data: [], models: [] });
      return json(200, {});
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Replaces the queue of replies for the coming main turns. */
    script(replies) { queue = [...replies]; },
    setUsage(u) { usage = { ...usage, ...u }; },
    /** Requests that were the agent's main turns (offered tools), in order. */
    turns() { return requests.filter((r) => isMainTurn(r.body)); },
    reset() { requests.length = 0; queue = []; },
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
