// The benchmark's client: plays Love Letter matches on one side, ours or
// boardgame.io's, with the same bot (bot.js), the same concurrency and the same
// number of moves, and prints one JSON line of results (raw latencies in ms).
//
//   node driver.js CONFIG.json     (then phases, one JSON line each, on stdin)
//
// CONFIG: {
//   "side": "bgio" | "ours",
//   "server": "http://127.0.0.1:PORT",
//   "seed": 1,
//   "target": 5,             // bgio: tokens to win a match (its setupData)
//   "pool_size": 80,         // bgio: matches the driver creates in the lobby, both seats joined
//   "pool": [{"id": 12, "tokens": {"ana": "...", "ben": "..."}}, ...],  // ours: live matches
//   "sockets": 50,           // ours over HTTP: keep-alive connections at most
//   "transport": "socket"    // ours: "socket" (the match socket) or "http"
// }
// A phase: {"name": "load", "matches": 50, "moves": 500, "warmup": 50, "seconds": 30}
// and, for the durability check, "request_ms" (each wait's bound in that
// phase) and "report_acked" (the result lists every move acknowledged: ours
// by command id, boardgame.io by [match, state id]), "progress_at" (a line
// PROGRESS once that many moves are acknowledged) and "max_errors" (the phase
// ends after that many failed matches).
//
// A phase plays `matches` matches at once (each a slot taking the next fresh
// match of the pool when its own ends) until `moves` moves are acknowledged or
// `seconds` pass; the first `warmup` moves are not measured. Every wait is
// bounded (REQUEST_TIMEOUT_MS a request or an acknowledgement).
//
// Per move, ours over the socket (ws/api/matches/<id>/, each seat's API token
// in the handshake; a match's two sockets open when a slot takes it, so 50
// matches at once hold 100 sockets): the seat the newest push names picks a
// play from the view its own push carried and sends {"command", "id"};
// latency = from the send to its ack (sent once the move's event committed);
// the next move waits for the next seat's push. Over HTTP: when the turn passed to the other seat, that seat fetches
// its view (GET /api/matches/<id>/); the seat to move picks a play from its
// view and sends it (POST /api/matches/<id>/commands); the answer holds its
// new view. Latency = the POST's round trip. boardgame.io: each seat is a
// boardgame.io Client on its socket.io transport, kept in sync by the server's
// pushes; the seat to move picks from its state and calls `moves.play`;
// latency = from the call to the client's state moving past the state the move
// was made on (the server's `update`, which it sends before writing to the
// database: see the README).
'use strict';

const fs = require('fs');
const http = require('http');

const { legalPlays, pick, rng } = require('./bot');

const REQUEST_TIMEOUT_MS = 15000;
// the phase's bound on one wait (a phase may set a shorter one: request_ms)
const limits = { requestMs: REQUEST_TIMEOUT_MS };
const SYNC_TIMEOUT_MS = 90000; // preparing, not timed: the machine may be busy migrating
const SEATS = ['ana', 'ben'];
const bgio = {}; // boardgame.io's client modules and server, once main loads them

function now() {
  return Number(process.hrtime.bigint()) / 1e6; // ms
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------- ours ----

class OursHttp {
  constructor(server, sockets) {
    const u = new URL(server);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
    this.counts = { GET: 0, POST: 0, retried: 0 };
  }

  // A kept-alive socket the server closed after its idle time (gunicorn's
  // --keep-alive) fails the request sent on it before any answer: sent again
  // once on a new socket, as Node's documentation advises. Safe for a move:
  // its command id makes a second send a replay, never a second move.
  async call(method, path, token, body) {
    try {
      return await this.send(method, path, token, body);
    } catch (e) {
      if (!e.reusedSocket || !['ECONNRESET', 'EPIPE'].includes(e.code)) throw e;
      this.counts.retried += 1;
      return this.send(method, path, token, body);
    }
  }

  send(method, path, token, body) {
    this.counts[method] += 1;
    const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const headers = {
      Host: `${this.host}:${this.port}`,
      'X-Forwarded-Proto': 'https', // the web server sits behind the proxy, as in production
      Accept: 'application/json',
      Authorization: `Token ${token}`,
    };
    if (data) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = data.length;
    }
    const req = new Promise((resolve, reject) => {
      const r = http.request(
        { host: this.host, port: this.port, method, path, headers, agent: this.agent },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let json = null;
            try {
              json = text ? JSON.parse(text) : null;
            } catch (e) {
              json = null;
            }
            resolve({ status: res.statusCode, body: json });
          });
          res.on('error', reject);
        },
      );
      r.on('error', (e) => {
        e.reusedSocket = r.reusedSocket;
        reject(e);
      });
      if (data) r.write(data);
      r.end();
    });
    return withTimeout(req, limits.requestMs, `${method} ${path}`);
  }
}

class OursMatch {
  constructor(api, entry, random) {
    this.api = api;
    this.id = entry.id;
    this.tokens = entry.tokens;
    this.random = random;
    this.view = null; // the view of the seat whose turn it is
    this.seat = null;
    this.finished = false;
  }

  static turnOf(view) {
    const pend = (view.pending || []).map((p) => p.seat).filter((s) => SEATS.includes(s));
    return view.finished || !pend.length ? null : pend[0];
  }

  async fetchView(seat, stats) {
    const t0 = now();
    const res = await this.api.call('GET', `/api/matches/${this.id}/`, this.tokens[seat]);
    if (stats) stats.fetch.push(now() - t0);
    if (res.status !== 200) throw new Error(`GET view: ${res.status}`);
    return res.body;
  }

  // learn whose turn it is, and that seat's view (outside the timed phases)
  async sync() {
    let view = await this.fetchView(SEATS[0]);
    const turn = OursMatch.turnOf(view);
    if (turn && turn !== SEATS[0]) view = await this.fetchView(turn);
    this.learn(view, turn);
  }

  learn(view, seat) {
    this.finished = !!view.finished;
    this.seat = seat;
    this.view = view;
  }

  choose() {
    const b = this.view.bout;
    const me = this.seat;
    const opp = SEATS.find((s) => s !== me);
    const targetable = !b.out.includes(opp) && !b.protected.includes(opp);
    const play = pick(legalPlays(b.hand.map(Number), me, opp, targetable), this.random);
    if (!play) throw new Error(`no legal play in match ${this.id} for ${me}`);
    const command = { type: 'play', card: String(play.card) };
    if (play.target !== undefined) command.target = play.target;
    if (play.guess !== undefined) command.guess = String(play.guess);
    return command;
  }

  // one move; returns its latency (ms)
  async move(stats, n) {
    if (this.view === null) {
      // the turn passed: the seat to move fetches its own view
      const first = await this.fetchView(this.seat, stats);
      this.learn(first, this.seat);
    }
    const command = this.choose();
    const t0 = now();
    const res = await this.api.call(
      'POST',
      `/api/matches/${this.id}/commands`,
      this.tokens[this.seat],
      { command, command_id: `peer-${this.id}-${n}` },
    );
    const took = now() - t0;
    if (res.status !== 201) {
      throw new Error(`POST command: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    stats.acked.push(`peer-${this.id}-${n}`);
    const view = res.body.view;
    const next = OursMatch.turnOf(view);
    if (view.finished || next === null) {
      this.finished = true;
    } else if (next === this.seat) {
      this.learn(view, next); // a new round the mover starts: its answer is its view
    } else {
      this.view = null;
      this.seat = next;
    }
    return took;
  }

  close() {}
}

// ------------------------------------------------------- ours, socket ----

// One seat's socket (ws/api/matches/<id>/, API token in the handshake): it
// keeps the newest push ({"type": "update", "version", "view", "legal"}) and
// the answers to its moves ({"type": "ack" | "refused", "id"}); every wait is
// bounded, and a closed socket fails its waiters at once.
class OursSeatSocket {
  constructor(url, token, WebSocket) {
    this.update = null;
    this.waiters = []; // {test, resolve, reject}
    this.closed = null;
    this.ws = new WebSocket(url, { headers: { Authorization: `Token ${token}` } });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('error', reject);
    });
    this.ws.on('error', () => {});
    this.ws.on('message', (data) => this.received(JSON.parse(data.toString())));
    this.ws.on('close', (code) => {
      this.closed = new Error(`socket closed (${code})`);
      for (const w of this.waiters.splice(0)) w.reject(this.closed);
    });
  }

  received(msg) {
    if (msg.type === 'update' && (!this.update || msg.version > this.update.version)) {
      this.update = msg;
    }
    this.waiters = this.waiters.filter((w) => {
      if (!w.test(msg)) return true;
      w.resolve(msg);
      return false;
    });
  }

  // the first message (from now, or the update already held) passing `test`
  wait(test, what, ms, held = null) {
    if (held && test(held)) return Promise.resolve(held);
    if (this.closed) return Promise.reject(this.closed);
    const p = new Promise((resolve, reject) => this.waiters.push({ test, resolve, reject }));
    return withTimeout(p, ms, what);
  }

  untilVersion(version, what, ms) {
    const test = (m) => m.type === 'update' && m.version >= version;
    return this.wait(test, what, ms, this.update);
  }

  send(obj) {
    this.ws.send(JSON.stringify(obj));
  }

  close() {
    try {
      this.ws.terminate();
    } catch (e) {
      /* already closed */
    }
  }
}

class OursSocketMatch {
  constructor(server, entry, random) {
    const u = new URL(server);
    this.url = `ws://${u.host}/ws/api/matches/${entry.id}/`;
    this.id = entry.id;
    this.tokens = entry.tokens;
    this.random = random;
    this.seats = null; // opened when a slot takes the match (50 live matches: 100 sockets)
    this.version = 0; // the newest version acknowledged or pushed
    this.finished = false;
  }

  async open() {
    const WebSocket = require('ws');
    this.seats = {};
    for (const seat of SEATS) this.seats[seat] = new OursSeatSocket(this.url, this.tokens[seat], WebSocket);
    await withTimeout(
      Promise.all(Object.values(this.seats).map((s) => s.opened)),
      limits.requestMs,
      `open ${this.id}`,
    );
    for (const s of Object.values(this.seats)) s.send({ since: 0 });
    const first = await Promise.all(
      Object.values(this.seats).map((s) => s.untilVersion(1, `first push ${this.id}`, limits.requestMs)),
    );
    this.version = Math.max(...first.map((m) => m.version));
  }

  // one move: the seat the newest push names sends it; returns its latency (send to ack)
  async move(stats, n) {
    if (!this.seats) {
      const o0 = now();
      await this.open();
      stats.opens.push(now() - o0);
    }
    const w0 = now(); // from the last ack to the push that names the seat to move
    const any = await this.firstPush();
    const seat = OursMatch.turnOf(any.view);
    if (any.view.finished || seat === null) {
      this.finished = true;
      return null;
    }
    // the seat to move holds its view at the newest version (its push)
    const mine = await this.seats[seat].untilVersion(this.version, `push to ${seat} in ${this.id}`, limits.requestMs);
    stats.pushWaits.push(now() - w0);
    const command = OursMatch.prototype.choose.call({ view: mine.view, seat, random: this.random, id: this.id });
    const id = `peer-${this.id}-${n}`;
    const t0 = now();
    this.seats[seat].send({ command, id });
    const answer = await this.seats[seat].wait(
      (m) => (m.type === 'ack' || m.type === 'refused') && m.id === id,
      `answer to ${seat} in ${this.id}`,
      limits.requestMs,
    );
    const took = now() - t0;
    if (answer.type !== 'ack') throw new Error(`refused: ${JSON.stringify(answer).slice(0, 300)}`);
    stats.acked.push(id);
    this.version = answer.version;
    return took;
  }

  // the first push of either seat at the newest version (whose turn is public)
  firstPush() {
    const waits = Object.entries(this.seats).map(([seat, s]) =>
      s.untilVersion(this.version, `push to ${seat} in ${this.id}`, limits.requestMs),
    );
    waits.forEach((p) => p.catch(() => {})); // the other one may fail later: not unhandled
    return Promise.any(waits).catch((e) => Promise.reject(e.errors ? e.errors[0] : e));
  }

  close() {
    for (const s of Object.values(this.seats || {})) s.close();
    this.seats = null;
  }
}

// ---------------------------------------------------------------- bgio ----

class BgioSeat {
  constructor(client) {
    this.client = client;
    this.waiters = [];
    client.subscribe((state) => {
      if (!state) return;
      this.waiters = this.waiters.filter((w) => {
        if (state._stateID >= w.stateID || state.ctx.gameover) {
          w.resolve(state);
          return false;
        }
        return true;
      });
    });
  }

  // resolves with the first state at or past stateID (bounded in time)
  until(stateID, what, ms = limits.requestMs) {
    const s = this.client.getState();
    if (s && (s._stateID >= stateID || s.ctx.gameover)) return Promise.resolve(s);
    const p = new Promise((resolve) => this.waiters.push({ stateID, resolve }));
    return withTimeout(p, ms, what);
  }
}

class BgioMatch {
  constructor(matchID, credentials, random) {
    this.id = matchID;
    this.credentials = credentials; // playerID -> its credentials from the lobby
    this.seats = null; // playerID -> BgioSeat, once a slot takes the match
    this.random = random;
    this.finished = false;
  }

  // the match made in the lobby and both seats joined (untimed, before the phases)
  static async create(lobby, target, random) {
    const { matchID } = await lobby.createMatch('love-letter', {
      numPlayers: 2,
      setupData: { target },
    });
    const credentials = {};
    for (const playerID of ['0', '1']) {
      const { playerCredentials } = await lobby.joinMatch('love-letter', matchID, {
        playerID,
        playerName: SEATS[Number(playerID)],
      });
      credentials[playerID] = playerCredentials;
    }
    return new BgioMatch(matchID, credentials, random);
  }

  // both seats' clients connected and synced: when a slot takes the match, as ours
  async open() {
    const { Client, SocketIO, LoveLetter, server } = bgio;
    this.seats = {};
    for (const [playerID, credentials] of Object.entries(this.credentials)) {
      const client = Client({
        game: LoveLetter,
        multiplayer: SocketIO({ server, socketOpts: { transports: ['websocket'] } }),
        matchID: this.id,
        playerID,
        credentials,
        debug: false,
      });
      this.seats[playerID] = new BgioSeat(client);
      client.start();
    }
    const synced = await Promise.all(
      Object.values(this.seats).map((s) => s.until(0, `sync ${this.id}`, limits.requestMs)),
    );
    this.last = synced[0];
  }

  async move(stats) {
    if (!this.seats) {
      const o0 = now();
      await this.open();
      stats.opens.push(now() - o0);
    }
    const turn = this.last.ctx.currentPlayer;
    const seat = this.seats[turn];
    // the seat to move holds the state the last move left (the server pushed it)
    const state = await seat.until(this.last._stateID, `push to ${turn} in ${this.id}`);
    if (state.ctx.gameover) {
      this.finished = true;
      return null;
    }
    const r = state.G.round;
    const opp = turn === '0' ? '1' : '0';
    const targetable = !r.out.includes(opp) && !r.protected.includes(opp);
    const play = pick(legalPlays(r.hands[turn], turn, opp, targetable), this.random);
    if (!play) throw new Error(`no legal play in match ${this.id} for ${turn}`);
    const t0 = now();
    seat.client.moves.play(play);
    const after = await seat.until(state._stateID + 1, `answer to ${turn} in ${this.id}`);
    const took = now() - t0;
    stats.acked.push([this.id, after._stateID]); // its server's push: its acknowledgement
    this.last = after;
    if (after.ctx.gameover) this.finished = true;
    return took;
  }

  close() {
    for (const s of Object.values(this.seats || {})) s.client.stop();
    this.seats = null;
  }
}

// --------------------------------------------------------------- phases ----

async function runPhase(phase, pool, totals) {
  const stats = { latency: [], fetch: [], errors: [], moves: 0, measured: 0, acked: [], opens: [], pushWaits: [] };
  limits.requestMs = phase.request_ms || REQUEST_TIMEOUT_MS;
  let t0 = null; // when the warm-up ended
  let t1 = null;
  const began = now();
  const stopAt = began + phase.seconds * 1000;
  let poolEmpty = 0;
  let finished = 0;
  const done = () =>
    stats.moves >= phase.warmup + phase.moves ||
    now() >= stopAt ||
    (phase.max_errors !== undefined && stats.errors.length >= phase.max_errors);

  async function slot() {
    while (!done()) {
      const m = pool.shift();
      if (!m) {
        poolEmpty += 1;
        return;
      }
      try {
        while (!m.finished && !done()) {
          const took = await m.move(stats, totals.moves);
          if (took === null) break;
          stats.moves += 1;
          totals.moves += 1;
          if (stats.moves === phase.progress_at) send('PROGRESS', { moves: stats.moves });
          if (stats.moves === phase.warmup) t0 = now();
          if (stats.moves > phase.warmup) {
            stats.latency.push(took);
            stats.measured += 1;
            t1 = now();
          }
        }
        if (m.finished) {
          finished += 1;
          m.close();
        } else {
          pool.unshift(m); // the next phase goes on with it
        }
      } catch (e) {
        stats.errors.push(String(e.message || e).slice(0, 300));
        m.close();
      }
    }
  }

  if (phase.warmup === 0) t0 = now();
  await Promise.all(Array.from({ length: phase.matches }, () => slot()));
  const elapsed = t0 !== null && t1 !== null ? (t1 - t0) / 1000 : 0;
  return {
    name: phase.name,
    matches: phase.matches,
    warmup: phase.warmup,
    moves: stats.measured,
    moves_all: stats.moves, // warm-up included
    seconds: Math.round(elapsed * 1000) / 1000,
    latency_ms: stats.latency.map((x) => Math.round(x * 1000) / 1000),
    fetch_ms: stats.fetch.map((x) => Math.round(x * 1000) / 1000),
    // ours over the socket: opening a match's two sockets, and waiting for the push
    // that names the seat to move after the last ack (neither is in latency_ms)
    open_ms: stats.opens.map((x) => Math.round(x * 1000) / 1000),
    push_wait_ms: stats.pushWaits.map((x) => Math.round(x * 1000) / 1000),
    matches_finished: finished,
    pool_ran_dry: poolEmpty > 0,
    pool_left: pool.length,
    errors: stats.errors.slice(0, 20),
    acked: phase.report_acked ? stats.acked : undefined, // the durability check's
    error_count: stats.errors.length,
    wall_seconds: Math.round(now() - began) / 1000,
  };
}

function send(kind, payload) {
  process.stdout.write(`${kind} ${JSON.stringify(payload)}\n`);
}

// Prepares the pool, says READY, then runs each phase named on a line of
// standard input (a JSON object) and answers RESULT; "quit" (or the end of
// input) stops it. Started by bench/bench_peer.py, which interleaves the two
// sides' phases.
async function main() {
  const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const random = rng(config.seed || 1);
  let api = null;
  let pool = [];
  const t = now();

  if (config.side === 'ours' && config.transport === 'socket') {
    // each match's two sockets open when a slot takes it (untimed: the warm-up)
    pool = config.pool.map((e) => new OursSocketMatch(config.server, e, random));
  } else if (config.side === 'ours') {
    api = new OursHttp(config.server, config.sockets);
    pool = config.pool.map((e) => new OursMatch(api, e, random));
    // learn whose turn each match starts with (not timed), a few at a time
    for (let i = 0; i < pool.length; i += 16) {
      await Promise.all(pool.slice(i, i + 16).map((m) => m.sync()));
    }
  } else {
    const { Client, LobbyClient } = require('boardgame.io/client');
    const { SocketIO } = require('boardgame.io/multiplayer');
    const { LoveLetter } = require('./game');
    Object.assign(bgio, { Client, SocketIO, LoveLetter, server: config.server });
    const lobby = new LobbyClient({ server: config.server });
    for (let i = 0; i < config.pool_size; i += 8) {
      const batch = Array.from({ length: Math.min(8, config.pool_size - i) }, () =>
        BgioMatch.create(lobby, config.target, random),
      );
      pool.push(...(await Promise.all(batch)));
    }
  }
  const totals = { moves: 0 };
  send('READY', { side: config.side, pool: pool.length, prepare_seconds: Math.round(now() - t) / 1000 });

  const rl = require('readline').createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (!line.trim()) continue;
    if (line.trim() === 'quit') break;
    const phase = JSON.parse(line);
    if (api) api.counts = { GET: 0, POST: 0, retried: 0 };
    const result = await runPhase(phase, pool, totals);
    if (api) result.requests = { ...api.counts };
    result.moves_total = totals.moves;
    send('RESULT', result);
  }
  for (const m of pool) m.close();
  send('BYE', { moves_total: totals.moves });
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`driver failed: ${e.stack || e}\n`);
  process.exit(1);
});
