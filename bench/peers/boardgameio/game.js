// Love Letter (the classic game, two players) for boardgame.io 0.50: the
// benchmark's peer of our `love-letter` (games/love_letter/rules.py), with the
// same cards, effects, round end and series (first to `target` tokens, the
// round winner starts the next round, a tie gives every tied player a token).
//
// Each turn is a draw and a play: the turn's onBegin draws the top card for the
// player whose turn it is, and the one move, `play`, plays a card and resolves
// it. The move runs on the server only (`client: false`): the deck is secret, so
// a client cannot run it. Every deal is shuffled with boardgame.io's random API
// (seeded on the server). playerView hides the other hand, the deck and the
// face-down card, as our views do.
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const { countessForced, TARGETED } = require('./bot');

const DECK = [1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8]; // 16 cards
const FACE_UP = 3; // set aside face up in a two-player game

const other = (p) => (p === '0' ? '1' : '0');

function deal(G, random, first) {
  const cards = random.Shuffle(DECK);
  const hidden = cards.shift();
  const removed = cards.splice(0, FACE_UP);
  G.round = {
    no: G.history.length + 1,
    first,
    hidden,
    removed,
    deck: cards,
    hands: { 0: [cards.shift()], 1: [cards.shift()] },
    discards: { 0: [], 1: [] },
    out: [],
    protected: [],
    seen: { 0: null, 1: null }, // what a Priest showed its player (theirs only)
    last: null, // the last play, in public
  };
  G.next = first;
}

function endRound(G, random, winners, reason) {
  for (const w of winners) G.tokens[w] += 1;
  G.history.push({ round: G.round.no, winners, reason });
  const best = Math.max(G.tokens['0'], G.tokens['1']);
  if (best >= G.target) {
    G.winners = ['0', '1'].filter((p) => G.tokens[p] === best);
    return;
  }
  const first = winners.length === 1 ? winners[0] : winners[random.Die(winners.length) - 1];
  deal(G, random, first);
}

function out(r, who) {
  r.discards[who].push(...r.hands[who]);
  r.hands[who] = [];
  r.out.push(who);
}

function play({ G, playerID, random }, { card, target, guess } = {}) {
  const r = G.round;
  const me = playerID;
  const hand = r.hands[me];
  card = Number(card);
  if (!hand.includes(card)) return INVALID_MOVE;
  if (card !== 7 && countessForced(hand)) return INVALID_MOVE;
  const opp = other(me);
  const targetable = !r.out.includes(opp) && !r.protected.includes(opp);
  if (TARGETED.has(card)) {
    if (target !== undefined && target !== null) target = String(target);
    if (targetable) {
      if (target !== opp && !(card === 5 && target === me)) return INVALID_MOVE;
    } else if (card === 5) {
      target = me; // every other player is protected: the Prince targets yourself
    } else {
      target = null; // played with no effect
    }
    if (card === 1 && target !== null) {
      guess = Number(guess);
      if (!Number.isInteger(guess) || guess < 2 || guess > 8) return INVALID_MOVE;
    }
  } else {
    target = null;
  }

  hand.splice(hand.indexOf(card), 1);
  r.discards[me].push(card);
  r.protected = r.protected.filter((p) => p !== me);
  if (card === 4) r.protected.push(me);
  r.last = { player: me, card, target, guess: card === 1 ? guess : null };

  if (card === 1 && target !== null) {
    r.last.hit = r.hands[target][0] === guess;
    if (r.last.hit) out(r, target);
  } else if (card === 2 && target !== null) {
    r.seen[me] = r.hands[target][0];
  } else if (card === 3 && target !== null) {
    const mine = r.hands[me][0];
    const theirs = r.hands[target][0];
    if (mine !== theirs) out(r, mine < theirs ? me : target);
  } else if (card === 5 && target !== null) {
    const lost = r.hands[target].shift();
    r.discards[target].push(lost);
    if (lost === 8) out(r, target);
    else if (r.deck.length) r.hands[target].push(r.deck.shift());
    else if (r.hidden !== null) {
      r.hands[target].push(r.hidden);
      r.hidden = null;
    }
  } else if (card === 6 && target !== null) {
    [r.hands[me], r.hands[target]] = [r.hands[target], r.hands[me]];
  } else if (card === 8) {
    out(r, me);
  }

  const live = ['0', '1'].filter((p) => !r.out.includes(p));
  if (live.length === 1) {
    endRound(G, random, live, 'last player in the round');
  } else if (!r.deck.length) {
    const held = Object.fromEntries(live.map((p) => [p, r.hands[p][0]]));
    const top = Math.max(...live.map((p) => held[p]));
    let winners = live.filter((p) => held[p] === top);
    let reason = 'highest card';
    if (winners.length > 1) {
      const sum = (p) => r.discards[p].reduce((a, b) => a + b, 0);
      const best = Math.max(...winners.map(sum));
      winners = winners.filter((p) => sum(p) === best);
      reason = winners.length === 1 ? 'highest discard total' : 'tied: every tied player wins';
    }
    endRound(G, random, winners, reason);
  } else {
    G.next = opp;
  }
}

const LoveLetter = {
  name: 'love-letter',
  minPlayers: 2,
  maxPlayers: 2,
  disableUndo: true,

  setup: ({ random }, setupData) => {
    const target = Number((setupData && setupData.target) || 5);
    const G = { target, tokens: { 0: 0, 1: 0 }, history: [], winners: null, round: null, next: '0' };
    deal(G, random, random.Die(2) === 1 ? '0' : '1'); // a coin flip for the first round
    return G;
  },

  validateSetupData: (setupData) => {
    const target = setupData && setupData.target;
    if (target !== undefined && !(Number.isInteger(target) && target >= 1 && target <= 20)) {
      return 'target must be a whole number from 1 to 20';
    }
    return undefined;
  },

  turn: {
    order: {
      first: ({ G }) => Number(G.next),
      next: ({ G }) => Number(G.next),
    },
    maxMoves: 1,
    onBegin: ({ G, ctx }) => {
      const r = G.round;
      const p = ctx.currentPlayer;
      r.protected = r.protected.filter((q) => q !== p); // protection ends at your turn
      if (r.deck.length) r.hands[p].push(r.deck.shift()); // the draw
    },
  },

  moves: {
    play: { move: play, client: false },
  },

  endIf: ({ G }) => (G.winners ? { winners: G.winners } : undefined),

  playerView: ({ G, playerID }) => {
    const r = G.round;
    return {
      ...G,
      round: {
        ...r,
        hidden: null,
        hiddenSetAside: r.hidden !== null,
        deck: null,
        deckSize: r.deck.length,
        hands: {
          0: playerID === '0' ? r.hands[0] : null,
          1: playerID === '1' ? r.hands[1] : null,
        },
        handSizes: { 0: r.hands[0].length, 1: r.hands[1].length },
        seen: { 0: playerID === '0' ? r.seen[0] : null, 1: playerID === '1' ? r.seen[1] : null },
      },
    };
  },
};

module.exports = { LoveLetter };
