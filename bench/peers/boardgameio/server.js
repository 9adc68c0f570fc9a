// The peer's server: boardgame.io's Server (Koa: the lobby's REST API and the
// socket.io transport on one port) with bgio-postgres's PostgresStore, as their
// documentation sets them up. Loopback only.
//
//   DATABASE_URL=postgresql://... PORT=8193 node server.js
//
// Options given to the store (Sequelize's): no per-query console logging (the
// default prints every statement: Sequelize's logging hook only counts them, by
// kind, and SIGUSR2 writes the counts to PEER_QUERY_COUNTS) and a pool of
// PEER_PG_POOL connections (Sequelize's default is 5). It prints "READY <port>"
// once it listens.
'use strict';

const fs = require('fs');

const { Server, Origins } = require('boardgame.io/server');
const { PostgresStore } = require('bgio-postgres');

const { LoveLetter } = require('./game');

const url = process.env.DATABASE_URL;
const port = Number(process.env.PORT || 8193);
const pool = Number(process.env.PEER_PG_POOL || 5);
if (!url) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}
const host = new URL(url).hostname;
if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) {
  console.error(`DATABASE_URL host ${host} is not a loopback address`);
  process.exit(2);
}

const counts = {};
function count(sql) {
  const m = /^Execut\w+ \([^)]*\): (\w+)/.exec(sql);
  const kind = m ? m[1].toUpperCase() : 'OTHER';
  counts[kind] = (counts[kind] || 0) + 1;
}
process.on('SIGUSR2', () => {
  if (process.env.PEER_QUERY_COUNTS) {
    const tmp = `${process.env.PEER_QUERY_COUNTS}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(counts));
    fs.renameSync(tmp, process.env.PEER_QUERY_COUNTS);
  }
});

const db = new PostgresStore(url, { logging: count, pool: { max: pool, min: 0 } });
const server = Server({ games: [LoveLetter], db, origins: [Origins.LOCALHOST] });

// Server.run listens on every interface; bind the same server to loopback
const listen = server.app.listen;
server.app.listen = (p, cb) => listen.call(server.app, p, '127.0.0.1', cb);

server.run({ port }, () => console.log(`READY ${port}`));

for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    db.sequelize.close().finally(() => process.exit(0));
  });
}
