// The one bot both sides of the benchmark use: from what its seat sees (its
// hand, and whether the other player may be targeted) it lists the legal plays
// exactly as our LoveLetterRules.legal_commands does, and picks one at random
// with a seeded generator. Each side only translates the pick into its own
// move: a command object for our API, a `play` move for boardgame.io.
'use strict';

const TARGETED = new Set([1, 2, 3, 5, 6]);

function countessForced(hand) {
  return hand.includes(7) && (hand.includes(5) || hand.includes(6));
}

// hand: ranks (numbers); me, opp: seat names; oppTargetable: not out, not protected
function legalPlays(hand, me, opp, oppTargetable) {
  const plays = [];
  for (const card of [...new Set(hand)].sort((a, b) => a - b)) {
    if (card !== 7 && countessForced(hand)) continue;
    if (!TARGETED.has(card)) {
      plays.push({ card });
      continue;
    }
    const targets = oppTargetable ? [opp] : [];
    if (card === 5) targets.push(me);
    if (!targets.length) {
      plays.push({ card });
      continue;
    }
    for (const target of targets) {
      if (card === 1) {
        for (let guess = 2; guess <= 8; guess++) plays.push({ card, target, guess });
      } else {
        plays.push({ card, target });
      }
    }
  }
  return plays;
}

// mulberry32: small, fast, seeded
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(plays, random) {
  return plays.length ? plays[Math.floor(random() * plays.length)] : null;
}

module.exports = { legalPlays, pick, rng, countessForced, TARGETED };
