// The tacocat web board: a client of the public HTTP API (docs/protocol.md),
// and the reference for frontend developers.  No framework, no build step.
//
// Every request goes through api(): POST /v1/<command> with the command's
// fields.  The game is created in the protocol's "play the engine" mode
// (new_game with `engine`): the server plays the engine's seat as soon as it
// must act, and the page holds only the human seat's token.  So nothing the
// page receives — and nothing it shows — is more than that seat may see
// (docs/protocol.md, "Playing the engine").  Hints stream their progress
// (`info_ms`, NDJSON) through apiStream().
//
// "Play a friend" creates a game for two people (new_game with `friend`):
// the answer has both seat tokens and no owner token; the page keeps its
// own and puts the other in an invite link (#join=<game>.<seat>.<token>),
// which it never sends itself.  Each page follows the other seat's moves by
// polling `view` with `since` (the events of the actions it has not seen, as
// its seat saw them: docs/protocol.md, "Playing a friend").
"use strict";

const BASE = "";  // same origin; a page elsewhere would put the engine's URL here
const STORE = "tacocat-board";
const STORE_LAST = "tacocat-board-last";  // the game set aside by the last new game, restorable
const POLL_MS = 700;  // how often a friend game's page asks what the other seat did
const POLL_HIDDEN_MS = 3000;  // the same, while the page is not shown

const $ = (id) => document.getElementById(id);
const S = {
  game: null, token: null, seat: 0, opponent: "level:3", seed: null,
  // "engine" or "friend"; the settings a rematch repeats; the invite link
  // (the friend's seat) until the friend is seen acting; the actions seen.
  mode: "engine", settings: null, invite: null, actions: null, pollTimer: null, pendingSettings: null,
  view: null, legal: [], selected: new Set(), over: false, winner: null,
  log: [], busy: false, hint: null, hintAll: false, replay: null,
  // The end of a round waiting for the player to go on: its showdown, the
  // cat's move, and the events that came after it (the next deal).
  roundEnd: null,
  ignoreKeysUntil: 0,
};

// ------------------------------------------------------------------ API

class ApiError extends Error {
  constructor(error) { super(error.message); this.code = error.code; this.field = error.field; }
}

// The page's only secret: the human seat's token, sent with every request
// about the game.
function withToken(fields) {
  return S.token ? { ...fields, token: S.token } : fields;
}

async function api(cmd, fields = {}) {
  const response = await fetch(`${BASE}/v1/${cmd}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(fields),
  });
  const data = await response.json();
  if (!data.ok) throw new ApiError(data.error);
  return data.result;
}

// A search with info_ms answers as NDJSON: info lines, then the response.
async function apiStream(cmd, fields, onInfo) {
  const response = await fetch(`${BASE}/v1/${cmd}`, {
    method: "POST", headers: { "content-type": "application/json", accept: "application/x-ndjson" },
    body: JSON.stringify(fields),
  });
  if (!(response.headers.get("content-type") || "").startsWith("application/x-ndjson")) {
    const data = await response.json();
    if (!data.ok) throw new ApiError(data.error);
    return data.result;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd}: the stream ended without an answer`);
    buffer += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      if (message.info && message.ok === undefined) { onInfo(message.info); continue; }
      if (!message.ok) throw new ApiError(message.error);
      return message.result;
    }
  }
}

// ------------------------------------------------------------------ words

const fmtCards = (cards) => (cards && cards.length ? cards.join(" ") : "nothing");
const pct = (p) => (p === null || p === undefined ? "–" : `${Math.round(p * 100)}%`);
// In a replay both hands are open and the seats are named by number.
// The other seat in words: the engine, or the friend this page plays.
const oppName = () => (S.mode === "friend" ? "Your friend" : "The engine");
const oppWord = () => (S.mode === "friend" ? "your friend" : "the engine");
const who = (p) => (S.replay ? `Player ${p}` : p === S.seat ? "You" : oppName());
const whom = (p) => (S.replay ? `player ${p}` : p === S.seat ? "you" : oppWord());
const wins = (p) => (S.replay || p !== S.seat ? "wins" : "win");
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function actionText(a) {
  switch (a.kind) {
    case "replace": return a.cards.length ? `replace ${fmtCards(a.cards)}` : "keep all (replace nothing)";
    case "duel": return `duel ${a.cards[0]}`;
    case "attack": return `attack ${fmtCards(a.cards)}`;
    case "answer": return `answer ${fmtCards(a.cards)} — ${a.beats ? "beat" : "sacrifice"}`;
    default: return `${a.kind} ${fmtCards(a.cards)}`;
  }
}

// An event as the player's seat received it: the other seat's events carry
// no hand and no draws (the server never sends them), so this says only
// what the player has seen.
function eventText(e) {
  switch (e.event) {
    case "deal": return `New deal: ${plural(e.hand_size, "card")} each, the cat on space ${e.cat}.` +
      (e.hand ? ` Your hand: ${fmtCards(e.hand)}.` : "");
    case "replace": {
      const n = e.cards.length;
      if (e.drawn && e.drawn.length) return `${who(e.player)} replaced ${fmtCards(e.cards)} and drew ${fmtCards(e.drawn)}.`;
      return n ? `${who(e.player)} replaced ${fmtCards(e.cards)} (face up) and drew ${plural(n, "card")} face down.`
        : `${who(e.player)} kept all ${S.replay || S.mode === "friend" ? (e.player === S.seat && !S.replay ? "your" : "their") : e.player === S.seat ? "your" : "its"} cards.`;
    }
    case "duel": {
      const [a, b] = S.replay ? [0, 1] : [S.seat, 1 - S.seat];
      const res = e.cards[a] === e.cards[b] ? "a tie: duel again"
        : `${whom(e.cards[a] > e.cards[b] ? a : b)} attack${!S.replay && e.cards[a] > e.cards[b] ? "" : "s"} first`;
      return `Duel: ${whom(a)} ${e.cards[a]}, ${whom(b)} ${e.cards[b]} — ${res}.`;
    }
    case "attack": return `${who(e.player)} attacked with ${fmtCards(e.cards)}.`;
    case "answer": {
      const won = e.beats ? e.player : 1 - e.player;
      return `${who(e.player)} answered ${fmtCards(e.cards)}: ${e.beats ? "every card beats" : "a sacrifice"} — ${whom(won)} ${wins(won)} the trick.`;
    }
    case "showdown": {
      const [a, b] = S.replay ? [0, 1] : [S.seat, 1 - S.seat];
      const res = e.winner === null ? "a drawn round: the cat stays" : `${whom(e.winner)} ${wins(e.winner)} the round`;
      return `Showdown: ${whom(a)} ${e.cards[a]}, ${whom(b)} ${e.cards[b]} — the lower card wins: ${res}.`;
    }
    default: return JSON.stringify(e);
  }
}

// ------------------------------------------------------------------ the end

// R19: the cat in player 0's goal (-1) or player 1's (7) wins the game.  A
// game over with the cat anywhere else reached its ruleset's max_deals deals
// without a winner: a drawn game (RULES §8), null, never player 1's win.
function winnerOf(board) {
  return board.cat < 0 ? 0 : board.cat > 6 ? 1 : null;
}

const DRAWN = "drawn game (max_deals reached)";

// Whose a game or a round is for `seat`: "draw" (no winner), "me" or "engine"
// (the other seat, a friend's in a friend game).
function sideOf(winner, seat) {
  if (winner === null || winner === undefined) return "draw";
  return winner === seat ? "me" : "engine";
}

// The end of a game in words, for `seat` (null: no seat, as in a replay):
// "log" a line of the game log, "prompt" the prompt, "caption" the board's
// caption after "Game over after N rounds: ", "replay" the replay's caption.
function endOfGameText(winner, seat, form) {
  if (winner === null || winner === undefined) {
    return { log: `A ${DRAWN}: no winner.`, prompt: `A ${DRAWN}. Press M for a rematch or R to replay it.`,
      caption: DRAWN, replay: DRAWN }[form];
  }
  const mine = winner === seat;
  return {
    log: mine ? "You win the game!" : `${oppName()} wins the game.`,
    prompt: mine ? "You won the game. Press M for a rematch or R to replay it."
      : `${oppName()} won the game. Press M for a rematch or R to replay it.`,
    caption: mine ? "you win" : `${oppWord()} wins`,
    replay: `player ${winner} won`,
  }[form];
}

const place = (cat) => (cat < 0 ? "player 0's goal" : cat > 6 ? "player 1's goal" : `space ${cat}`);

// What a round's end did to the board, in words (R17–R19).
function catMoveText(showdown, from, to, over) {
  if (showdown.winner === null) return `A drawn round: the cat stays on ${place(from)} and the cards are dealt again (R17).`;
  const goal = to < 0 || to > 6;
  const where = goal ? (winnerOf({ cat: to }) === S.seat ? "your goal" : `${oppWord()}'s goal`) : place(to);
  return `The cat moves from space ${from} to ${where}; a tile covers space ${from} (R18).` +
    (goal ? ` ${endOfGameText(winnerOf({ cat: to }), S.seat, "log")}` : over ? ` ${endOfGameText(null, S.seat, "log")}` : "");
}

// ------------------------------------------------------------------ state

// The game as kept in storage.  Only this seat's token is kept, and, until
// the friend is seen acting, the invite link (the friend's seat) the page
// shows but never sends.
function saved() {
  return { game: S.game, token: S.token, seat: S.seat, opponent: S.opponent, seed: S.seed, log: S.log.slice(-200),
    mode: S.mode, settings: S.settings, invite: S.invite, actions: S.actions };
}

// Kept per tab first (sessionStorage: a friend's link opened in another tab
// of the same browser does not take this tab's game), and per browser.
function save() {
  if (!S.game) return;
  const text = JSON.stringify(saved());
  sessionStorage.setItem(STORE, text);
  localStorage.setItem(STORE, text);
}

function load(record) {
  // A board saved before the engine mode kept every seat's token: keep this seat's only.
  const token = record.token || (record.tokens && Array.isArray(record.tokens.seats) ? record.tokens.seats[record.seat] : null);
  Object.assign(S, { game: record.game, token, seat: record.seat, opponent: record.opponent || "level:3",
    seed: record.seed ?? null, log: record.log || [], mode: record.mode || "engine", invite: record.invite || null,
    settings: record.settings || null, actions: record.actions ?? null,
    view: null, legal: [], hint: null, replay: null, roundEnd: null, over: false, winner: null });
  S.selected.clear();
}

// A game in progress set aside by a new one: kept, so "Restore the last
// game" brings it back (the server keeps it until its retention ends).
function stashLast() {
  if (!S.game || S.over) return;
  localStorage.setItem(STORE_LAST, JSON.stringify(saved()));
}

async function restoreLast() {
  const last = JSON.parse(localStorage.getItem(STORE_LAST) || "null");
  if (!last || !last.game) return;
  stopPolling();
  const current = S.game && !S.over ? saved() : null;
  await run(async () => {
    load(last);
    closePanels();
    try {
      await refresh();
    } catch (err) {
      localStorage.removeItem(STORE_LAST);
      if (current) { load(current); await refresh(); }
      throw new Error("the last game is gone from the server (it forgets games left idle past its retention)");
    }
    if (current) localStorage.setItem(STORE_LAST, JSON.stringify(current)); else localStorage.removeItem(STORE_LAST);
    addLog("Restored the game set aside.", "system");
  }, "Restoring…");
}

function addLog(text, kind = "") {
  S.log.push({ text, kind });
  renderLog();
}

function takeEvents(events) {
  for (const e of events || []) addLog(eventText(e), e.event);
}

// The events of one answer (apply or new_game), in order.  A showdown ends
// a round: the board stops there until the player goes on (Enter, Space or
// a click), and the events after it (the next deal) are shown then.
function takeAnswer(events, status, before) {
  events = events || [];
  const i = events.findIndex((e) => e.event === "showdown");
  if (i < 0) {
    takeEvents(events);
    if (status.over) addLog(endOfGameText(status.winner, S.seat, "log"), "over");
    return;
  }
  takeEvents(events.slice(0, i + 1));
  const rest = events.slice(i + 1);
  const nextDeal = rest.find((e) => e.event === "deal");
  const to = nextDeal ? nextDeal.cat : status.board.cat;
  const from = before ? before.board.cat : to;
  S.roundEnd = {
    showdown: events[i],
    round: before ? before.rounds.length + 1 : null,
    from, to,
    over: !rest.some((e) => e.event === "showdown") && status.over,
    history: (before ? before.history : []).concat(events.slice(0, i + 1)),
    rest, status, animated: false,
  };
  // On a phone the board is at the top: the round's end is shown there.
  if (window.matchMedia("(max-width: 899px)").matches) window.scrollTo({ top: 0, behavior: "smooth" });
}

function continueRound() {
  const R = S.roundEnd;
  if (!R || S.busy) return;
  clearMessage();
  S.roundEnd = null;
  S.ignoreKeysUntil = performance.now() + 350;  // the key that went on must not also play
  // a later showdown in the same answer starts where this one left the cat
  takeAnswer(R.rest, R.status, { board: { cat: R.to }, rounds: { length: R.round || 0 }, history: [] });
  render();
  focusPlay();
}

// The seat's view, and the events of the actions this page has not seen
// (`since`): in a friend's game, what the other seat did meanwhile.  A page
// that does not know where it is (a reload, a join) takes the count only.
async function refresh() {
  const known = S.actions !== null && S.actions !== undefined;
  const v = await api("view", withToken({ game: S.game, player: S.seat, since: known ? S.actions : 0 }));
  if (known && v.events.length) takeOthers(v.events, v.view);
  S.actions = v.actions;
  setView(v.view);
  const legal = await api("legal", withToken({ game: S.game, player: S.seat }));
  S.legal = legal.actions;
  S.selected.clear();
  save();
  render();
}

function setView(view) {
  S.view = view;
  S.over = view.phase === "over";
  S.winner = S.over ? winnerOf(view.board) : null;
}

// Events the other seat's actions caused, as this seat saw them.
function takeOthers(events, view) {
  if (S.invite && events.some((e) => e.player === 1 - S.seat)) {
    S.invite = null;  // the friend is playing: the link has done its work
    addLog("Your friend has joined.", "system");
  }
  S.hint = null;
  takeAnswer(events, { over: view.phase === "over", winner: winnerOf(view.board), board: view.board }, S.view);
}

// A friend's game: while it is the other seat's turn, ask what it did.
function schedulePoll() {
  if (S.pollTimer !== null) return;
  if (S.mode !== "friend" || !S.game || S.over || S.replay || S.roundEnd || myDecision()) return;
  S.pollTimer = setTimeout(poll, document.hidden ? POLL_HIDDEN_MS : POLL_MS);
}

function stopPolling() {
  if (S.pollTimer !== null) clearTimeout(S.pollTimer);
  S.pollTimer = null;
}

async function poll() {
  S.pollTimer = null;
  if (S.busy || S.mode !== "friend" || !S.game || S.over || S.roundEnd || S.replay || myDecision()) { schedulePoll(); return; }
  const game = S.game;
  let again = true;
  try {
    const v = await api("view", withToken({ game, player: S.seat, since: S.actions ?? 0 }));
    if (S.game !== game || S.busy) return;  // a new game, or a move of this page, meanwhile
    const changed = v.events.length || JSON.stringify(v.view) !== JSON.stringify(S.view);
    if (v.events.length) takeOthers(v.events, v.view);
    S.actions = v.actions;
    if (changed) {
      setView(v.view);
      S.legal = (await api("legal", withToken({ game, player: S.seat }))).actions;
      S.selected.clear();
      save();
      render();
      focusPlay();
    }
  } catch (err) {
    showError(err);
    if (err instanceof ApiError && (err.code === "bad_field" || err.code === "forbidden")) again = false;  // the game is gone
  } finally {
    if (again) schedulePoll();
  }
}

// An opponent's value ("level:3", "bot:pimc:100") as new_game's engine fields.
function opponentRequest(value) {
  const [kind, name, ms] = value.split(":");
  if (kind === "level") return { level: Number(name) };
  const req = { bot: name };
  if (ms) req.time_ms = Number(ms);
  return req;
}

// The opponent in a player's words: a name, what it does, and its level.
const OPPONENT_WORDS = {
  "level:1": ["Beginner", "plays any legal move, at random", 1],
  "level:2": ["Novice", "plays by rules of thumb", 2],
  "level:3": ["Casual", "makes one guess at your hand each move", 3],
  "level:4": ["Club player", "weighs 6 guesses at your hand", 4],
  "level:5": ["Strong", "weighs 25 guesses at your hand", 5],
  "bot:pimc_classic": ["Expert, classic", "as many guesses as a tenth of a second allows; the ladder's yardstick"],
  "bot:pimc_eq": ["Expert, bluffer", "mixes its duel cards as a balanced player would"],
  "bot:pimc": ["Master", "as many guesses as a tenth of a second allows, sharper replacing and duels"],
  "bot:ismcts": ["Master, far-sighted", "plays whole rounds out in its head for a tenth of a second"],
  "bot:pimc_static": ["Expert, steady", "guesses for a tenth of a second, never reading your choices"],
};
const TIMED_MS = 100;  // the ladder's budget (results/ladder.md), so the measured strength is this opponent's
const HINT_HELP = "On your turn, Hint (H) ranks your moves with their odds.";

const wordsOf = (value) => OPPONENT_WORDS[value.split(":").slice(0, 2).join(":")] || [value, ""];

function opponentLabel(value = S.opponent) {
  if (!value) return oppWord();
  const [name, , level] = wordsOf(value);
  return level ? `${name} (level ${level})` : name;
}

const signed = (x) => (x > 0 ? `+${x}` : x < 0 ? `\u2212${-x}` : "0");

// The opponents the engine offers a seat (hello's `levels` and `bots`: the
// bots that choose from a seat's view, never one that reads the other hand),
// weakest first by their measured strength: /web/opponents.json, written
// from results/ladder.md (Elo against the reference engine, pimc_classic, at
// 100 ms a move) by results/board_opponents.py.  One not measured comes last.
async function loadOpponents() {
  let hello, strength = { opponents: [] };
  try { hello = await api("hello"); } catch (err) { return; }
  try {
    const r = await fetch(`${BASE}/web/opponents.json`);
    if (r.ok) strength = await r.json();
  } catch (err) { /* the order stays the levels' own */ }
  const offered = [];
  for (const level of Object.keys(hello.levels || {}).sort((a, b) => a - b)) offered.push(`level:${level}`);
  for (const bot of hello.bots || []) {
    if (bot === "random" || bot === "heuristic") continue;  // levels 1 and 2
    offered.push(`bot:${bot}:${TIMED_MS}`);
  }
  const measured = new Map(strength.opponents.map((o) => [o.value, o]));
  const rank = (v) => (measured.has(v) ? measured.get(v).elo : Infinity);
  offered.sort((a, b) => rank(a) - rank(b));
  const select = $("opponent");
  const keep = S.game && S.opponent ? S.opponent : select.value;
  select.innerHTML = "";
  for (const value of offered) {
    const [, what] = wordsOf(value);
    const m = measured.get(value);
    const how = m ? `Elo ${signed(Math.round(m.elo))}` : "not measured";
    const opt = new Option(`${opponentLabel(value)} — ${what} · ${how}`, value);
    opt.title = m ? `Measured: ${m.deals ? `${m.deals} deals` : "the reference"} against ${strength.reference} (${strength.source})` : "";
    select.append(opt);
  }
  select.value = [...select.options].some((o) => o.value === keep) ? keep : "level:3";
}

function setBusy(busy, text = "") {
  S.busy = busy;
  document.body.classList.toggle("busy", busy);
  $("prompt").textContent = busy ? text : promptText();
  $("play").disabled = busy || !myDecision();
}

async function run(task, busyText = "…") {
  setBusy(true, busyText);  // at once: no second action while this one is on its way
  try {
    await task();
  } catch (err) {
    showError(err);
  } finally {
    setBusy(false);
    render();
    focusPlay();
  }
}

// Keyboard flow: after every step the focus rests on Play when it is the
// player's turn, or on "Next deal" at a round's end (unless it is on
// something that still exists).  Never scrolls: the board stays put.
function focusPlay() {
  const active = document.activeElement;
  const lost = !active || active === document.body || !document.body.contains(active) || active.offsetParent === null ||
    active.id === "new-game" || active.id === "next";
  if (!lost) return;
  if (S.roundEnd) $("next").focus({ preventScroll: true });
  else if (myDecision()) $("play").focus({ preventScroll: true });
}

function showError(err) {
  const msg = err instanceof ApiError ? `Refused (${err.code}): ${err.message}` : `Error: ${err.message}`;
  $("message").textContent = msg;
  $("message").classList.add("shown");
}

function clearMessage() {
  $("message").textContent = "";
  $("message").classList.remove("shown");
}

// ------------------------------------------------------------------ actions

function myDecision() {
  if (!S.view || S.over || S.roundEnd) return null;
  const acting = S.view.acting || [];
  if (!acting.includes(S.seat)) return null;
  if (S.view.phase === "replace") return "replace";
  if (S.view.phase === "duel") return "duel";
  if (S.view.phase === "play") return S.view.table.length ? "answer" : "attack";
  return null;
}

function selectedCards() {
  return [...S.selected].map((i) => S.view.hand[i]).sort((a, b) => a - b);
}

// The player's action; the answer brings the engine's replies too (the
// server moves for it at once), as this seat sees them.
async function play(action) {
  clearMessage();
  const before = S.view;
  const applied = await api("apply", withToken({ game: S.game, player: S.seat, action }));
  // The events say what the player did once it is face up; a secret
  // choice still waiting for the other's is said here.
  if (!(applied.events || []).some((e) => e.event === applied.action.kind && (e.player === S.seat || e.event === "duel"))) {
    addLog(`You chose: ${actionText(applied.action)} (in secret until both have chosen).`, "mine");
  }
  S.hint = null;
  takeAnswer(applied.events, applied.status, before);
  S.actions = applied.status.actions;
  await refresh();
}

// The selected cards as an action.  Nothing is checked here: the engine
// refuses an illegal move and says which rule it breaks.
function playSelected(beats) {
  if (S.roundEnd) { continueRound(); return; }
  const kind = myDecision();
  if (!kind || S.busy || performance.now() < S.ignoreKeysUntil) return;
  const cards = selectedCards();
  const action = { kind, cards };
  if (kind === "answer") {
    const fits = S.legal.filter((a) => a.cards.join() === cards.join());
    if (beats !== undefined) action.beats = beats;
    else if (fits.length === 1) action.beats = fits[0].beats;
    else if (fits.length === 2) { renderChoice(cards); return; }
  }
  run(() => play(action), thinkingText());
}

const thinkingText = () => (S.mode === "friend" ? "Sending your move…" : "The engine is thinking…");

function renderChoice(cards) {
  const box = $("choice");
  box.innerHTML = "";
  box.append("These cards can ");
  for (const beats of [true, false]) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = beats ? "beat" : "sacrifice";
    b.addEventListener("click", () => { box.innerHTML = ""; playSelected(beats); });
    box.append(b, beats ? " or " : "");
  }
  box.querySelector("button").focus({ preventScroll: true });
}

// The settings of a new game, from the form: against the engine, or a
// friend (the seed is not offered there: whoever chose it would know every
// deal, and the friend would not).
function formSettings(mode) {
  const seat = Number($("seat").value);
  if (mode === "friend") return { mode, seat, opponent: null, seed: "" };
  return { mode, seat, opponent: $("opponent").value, seed: $("seed").value.trim() };
}

// A new game, after a confirmation when one is in progress: that one is
// set aside (stashLast), restorable.
function requestGame(settings) {
  if (S.busy) return;
  if (S.game && S.view && !S.over && !S.replay) { askConfirm(settings); return; }
  startGame(settings);
}

function newGame(event) {
  if (event) event.preventDefault();
  requestGame(formSettings("engine"));
}

function askConfirm(settings) {
  S.pendingSettings = settings;
  const rounds = S.view ? S.view.rounds.length : 0;
  $("confirm-text").textContent = `This game is not over (round ${rounds + 1}, ${S.mode === "friend" ? "with your friend" : `against ${opponentLabel()}`}). ` +
    `Start a new one? This one is set aside: “Restore the last game” brings it back.`;
  $("confirm").hidden = false;
  document.body.classList.add("confirming");
  $("confirm-no").focus({ preventScroll: true });
}

function closeConfirm() {
  S.pendingSettings = null;
  $("confirm").hidden = true;
  document.body.classList.remove("confirming");
  focusPlay();
}

function confirmed() {
  const settings = S.pendingSettings;
  closeConfirm();
  if (settings) startGame(settings);
}

function closePanels() {
  $("replay").hidden = true;
  document.body.classList.remove("replaying");
  clearMessage();
}

async function startGame(settings) {
  stopPolling();
  // The engine plays the other seat on the server (a seed only when the
  // player chose one: the seed decides every deal, and the server keeps
  // it), or a friend does (new_game's friend: both seats' tokens, no owner's).
  const fields = settings.mode === "friend" ? { friend: true }
    : { engine: { seat: 1 - settings.seat, ...opponentRequest(settings.opponent) } };
  if (settings.seed) fields.seed = Number(settings.seed);
  await run(async () => {
    const g = await api("new_game", fields);
    stashLast();
    load({ game: g.game, token: g.tokens.seats[settings.seat], seat: settings.seat, opponent: settings.opponent,
      seed: g.seed, mode: settings.mode, settings, actions: g.actions, log: [] });
    closePanels();
    if (settings.mode === "friend") {
      const other = 1 - settings.seat;
      S.invite = `${location.origin}${location.pathname}#join=${g.game}.${other}.${g.tokens.seats[other]}`;
      addLog(`New game with a friend: you are player ${S.seat}. Send them the invite link.`, "system");
    } else {
      addLog(`New game against ${opponentLabel()}${g.seed === null || g.seed === undefined ? "" : `, seed ${g.seed}`}. ` +
        `You are player ${S.seat}.`, "system");
    }
    if (g.hand) addLog(`Your hand: ${fmtCards(g.hand)}.`, "system");
    takeAnswer(g.events, g, null);
    await refresh();
    if (!g.hand) addLog(`Your hand: ${fmtCards(S.view.hand)}.`, "system");  // a friend's game answers no hand: the view has it
  }, "Dealing…");
  if (S.invite) $("invite-copy").focus({ preventScroll: true });
}

function rematch() {
  if (!S.over || S.busy || !S.settings) return;
  startGame({ ...S.settings });
}

// The invite link of a friend's game opens the other seat: this page then
// plays it (a game this page had in progress is set aside, restorable).
function joinFromLink() {
  const m = /^#join=([A-Za-z0-9_-]+)\.([01])\.([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!m) return false;
  history.replaceState(null, "", location.pathname + location.search);  // the key leaves the address bar
  if (S.game && S.game !== m[1]) stashLast();
  const seat = Number(m[2]);
  load({ game: m[1], token: m[3], seat, mode: "friend", settings: { mode: "friend", seat, opponent: null, seed: "" },
    log: [{ text: `You joined your friend's game as player ${seat}.`, kind: "system" }] });
  return true;
}

async function resume() {
  const joined = joinFromLink();
  const record = joined ? null : JSON.parse(sessionStorage.getItem(STORE) || localStorage.getItem(STORE) || "null");
  if (!joined && (!record || !record.game)) return false;
  if (record) load(record);
  if ([...$("opponent").options].some((o) => o.value === S.opponent)) $("opponent").value = S.opponent;
  $("seat").value = String(S.seat);
  try {
    await refresh();
  } catch (err) {
    if (joined) { showError(new Error(`the invite link does not open a game here (${err.message})`)); }
    if (err instanceof ApiError) {  // the server answered: the game is gone, or not this seat's
      localStorage.removeItem(STORE);
      sessionStorage.removeItem(STORE);
    } else if (!joined) {  // no answer (the server down, or a reload cut the request): the game is kept
      showError(new Error(`the saved game could not be resumed (${err.message}); reload the page to try again`));
    }
    Object.assign(S, { game: null, token: null, view: null, log: [] });
    return false;
  }
  if (!joined) addLog("Resumed the game after a reload.", "system");
  return true;
}

// ------------------------------------------------------------------ hint

// BEGIN ranking: a direct port of tacocat.search.ranking (rank_moves and
// its helpers), so the board's table ranks a hint as `tacocat hint` does:
// the engine's pick first, then the moves the search carried furthest
// (deals, or ISMCTS iterations), then by value; the moves dropped early
// (a replacement's sequential halving drops most discards after a deal
// or two) are summarised.  tests/test_web_board_ranking.py runs this block
// under node against rank_moves on the same answers: change both together.
const FEW_SAMPLES = 10;  // fewer deals than this: no margin of its own
const CARRIED_SHARE = 0.1;  // fewer than this share of the pick's deals: dropped early
const Z95 = 1.96;
const isInt = (n) => typeof n === "number" && Number.isInteger(n);

// The deals (or iterations) behind a move's value: its own `visits` when
// the search spent unequally, else the answer's `samples`; null when exact.
function samplesOf(move, result) {
  if (isInt(move.visits)) return move.visits;
  if (result.exact) return null;
  return isInt(result.samples) ? result.samples : null;
}

// The 95% margin of a move's value; null with no stderr or too few deals.
function marginOf(move, result) {
  const se = move.stderr;
  if (typeof se !== "number") return null;
  const n = samplesOf(move, result);
  if (n !== null && n < FEW_SAMPLES) return null;
  return Z95 * se;
}

// A margin that holds however the move's deals fell (ranking.widest_margin).
function widestMargin(move, result) {
  const own = marginOf(move, result);
  if (own !== null) return own;
  const n = samplesOf(move, result);
  if (!n) return Infinity;
  const u = result.utilities;
  const spread = Array.isArray(u) && u.length ? Math.max(...u) - Math.min(...u) : 2.0;
  return Z95 * (spread / 2.0) / Math.sqrt(n);
}

function sameMove(a, b) {
  const cards = (m) => JSON.stringify([...(m.cards || [])].sort((x, y) => x - y));
  return a.kind === b.kind && cards(a) === cards(b) && (a.beats ?? null) === (b.beats ?? null);
}

// {rows, dropped, withinReach, unit}, as ranking.Ranking.
function rankMoves(result) {
  const moves = result.moves || [];
  const best = result.best;
  const found = best && typeof best === "object" ? moves.findIndex((m) => sameMove(m, best)) : -1;
  const pickAt = found >= 0 ? found : 0;
  const others = bySamplesThenValue(result, moves.map((m, i) => [i, m]).filter(([i]) => i !== pickAt));
  if (!moves.length) return { rows: [], dropped: [], withinReach: [], unit: "deals" };
  const pick = moves[pickAt];
  const unit = result.method === "ismcts" ? "iterations" : "deals";
  const nPick = samplesOf(pick, result);
  if (!nPick) return { rows: [pick, ...others], dropped: [], withinReach: [], unit };
  const carried = [], dropped = [];
  for (const m of others) {
    const n = samplesOf(m, result);
    (n !== null && n < CARRIED_SHARE * nPick ? dropped : carried).push(m);
  }
  return { rows: [pick, ...carried], dropped, withinReach: withinReach(result, pick, dropped), unit };
}

// Most samples first, then by value (no value after a value), then the search's order.
function bySamplesThenValue(result, items) {
  const key = ([i, m]) => {
    const n = samplesOf(m, result);
    const value = m.value;
    return typeof value === "number" && n !== 0 ? [-(n || 0), 0, -value, i] : [-(n || 0), 1, 0, i];
  };
  const keyed = items.map((item) => [key(item), item[1]]);
  keyed.sort(([a], [b]) => {
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
  });
  return keyed.map(([, m]) => m);
}

// The dropped moves whose value, at its widest margin, reaches the pick's less its margin.
function withinReach(result, pick, dropped) {
  const value = pick.value;
  const floor = typeof value === "number" ? value - (marginOf(pick, result) || 0.0) : Infinity;
  return dropped.filter((m) => typeof m.value === "number" && m.value + widestMargin(m, result) >= floor);
}
// END ranking

const HINT_ROWS = 8;  // rows shown before "Show all": the board stays one screen on a desktop
const counted = (n, unit) => `${n} ${n === 1 ? unit.slice(0, -1) : unit}`;

// The moves behind "Show all", in one line: the rows past HINT_ROWS, and
// the ones the search dropped early (as `tacocat hint` says it): how
// many, after how few deals, and whether any could still reach the pick.
function hiddenText(ranking, result) {
  const parts = [];
  const extra = ranking.rows.length - HINT_ROWS;
  if (extra > 0) parts.push(`${extra} more ${extra === 1 ? "move" : "moves"} searched as far`);
  const dropped = ranking.dropped;
  if (dropped.length) {
    const counts = dropped.map((m) => samplesOf(m, result) || 0);
    const lo = Math.min(...counts), hi = Math.max(...counts);
    const unit = hi === 1 ? ranking.unit.slice(0, -1) : ranking.unit;
    const span = lo === hi ? `${lo}` : `${lo}–${hi}`;
    const head = ranking.unit === "iterations"
      ? `${dropped.length} more explored in only ${span} ${unit}`
      : `${dropped.length} more dropped after ${span} ${unit}`;
    const reach = ranking.withinReach;
    if (!reach.length) parts.push(`${head}: none within reach of the pick`);
    else {
      // the best-supported of them: a one-deal value is the noise the line warns of
      const top = reach.reduce((a, m) => {
        const na = samplesOf(a, result) || 0, nm = samplesOf(m, result) || 0;
        return nm > na || (nm === na && m.value > a.value) ? m : a;
      });
      parts.push(`${head}; ${reach.length} not ruled out on so few, ` +
        `e.g. ${actionText(top)} (game ${pct(top.game_win)}, ${counted(samplesOf(top, result) || 0, ranking.unit)})`);
    }
  }
  return parts.join("; ");
}

async function hint() {
  if (!myDecision() || S.busy) return;
  clearMessage();
  const status = $("hint-status");
  status.textContent = "Searching…";
  // Every move, not the best few: the table ranks them by what the search
  // knows and sums up the ones it dropped early (rankMoves).
  const fields = { game: S.game, player: S.seat };
  // Sampled play and duel searches stream what they have found so far.
  if (myDecision() !== "replace") Object.assign(fields, { time_ms: 600, info_ms: 150 });
  await run(async () => {
    const result = await apiStream("hint", withToken(fields), (info) => {
      if (info.best) {
        status.textContent = `Searching… ${info.samples ?? "?"} deals so far; best so far: ${actionText(info.best)}` +
          (info.margin !== null && info.margin !== undefined ? ` (ahead by ${info.margin.toFixed(3)})` : "");
      }
    });
    S.hint = result;
    S.hintAll = false;
    status.textContent = `Best: ${actionText(result.best)} — ${hintHow(result)}.`;
  }, "Searching for a hint…");
  // On a phone the hint sits below the hand: bring it up once, when it came.
  if (S.hint && window.matchMedia("(max-width: 899px)").matches) {
    $("hint-area").scrollIntoView({ block: "nearest", behavior: "smooth" });
  }
}

// How the hint was found, in a player's words.
function hintHow(result) {
  if (result.exact) return "exact: every possible opponent hand";
  if (result.method === "ismcts") return `ISMCTS, ${result.iterations ?? result.samples ?? "?"} iterations`;
  const n = samplesOf(result.best || {}, result);
  return `${result.method === "pimc" ? "PIMC" : result.method}, ${n === null ? "?" : counted(n, "deals")} on the pick`;
}

function renderHint() {
  const table = $("hint-table");
  const body = table.querySelector("tbody");
  body.innerHTML = "";
  if (!S.hint || !myDecision()) {
    table.hidden = true;
    if (!S.hint && !S.busy) $("hint-status").textContent = HINT_HELP;
    return;
  }
  table.hidden = false;
  const result = S.hint;
  const ranking = rankMoves(result);
  $("hint-n").textContent = ranking.unit === "iterations" ? "iters" : "deals";
  const shown = S.hintAll ? [...ranking.rows, ...ranking.dropped] : ranking.rows.slice(0, HINT_ROWS);
  const dropped = new Set(ranking.dropped);
  shown.forEach((m, i) => {
    const tr = document.createElement("tr");
    tr.tabIndex = 0;
    tr.title = "Select these cards (Enter)";
    tr.className = "move" + (dropped.has(m) ? " dropped" : "");
    const n = samplesOf(m, result);
    const cells = [i + 1, actionText(m), pct(m.win), pct(m.draw), pct(m.loss), pct(m.game_win),
      n === null ? (result.exact ? "all" : "–") : n];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.append(td); }
    const pick = () => selectCards(m.cards);
    tr.addEventListener("click", pick);
    // preventDefault: the Enter that picks must not also press Play, which has the focus by then
    tr.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); e.stopPropagation(); pick(); } });
    body.append(tr);
  });
  const hidden = hiddenText(ranking, result);
  if (!hidden) return;
  // One line for the moves not shown, and the toggle that shows them.
  const tr = document.createElement("tr");
  tr.className = "more";
  const td = document.createElement("td");
  td.colSpan = 7;
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.id = "hint-all";
  toggle.textContent = S.hintAll ? "Show fewer" : "Show all";
  // the focus stays on the toggle, the list where it was (its top)
  toggle.addEventListener("click", () => { S.hintAll = !S.hintAll; renderHint(); $("hint-all").focus({ preventScroll: true }); });
  td.append(S.hintAll ? "" : `${hidden} `, toggle);
  tr.append(td);
  body.append(tr);
}

function selectCards(cards) {
  S.selected.clear();
  const want = [...cards];
  S.view.hand.forEach((c, i) => {
    const k = want.indexOf(c);
    if (k >= 0) { S.selected.add(i); want.splice(k, 1); }
  });
  renderHand();
  $("play").focus({ preventScroll: !window.matchMedia("(max-width: 899px)").matches });
}

// ------------------------------------------------------------------ replay

// A finished game's record opens to its seat: the replay shows both hands,
// deal by deal (each step is the record's first k actions, replayed by the
// server on a copy of its own, which is ended at once).
async function openReplay() {
  if (!S.game || !S.over) return;
  await run(async () => {
    const rec = (await api("record", withToken({ game: S.game }))).record;
    S.replay = { record: rec, step: rec.actions.length, states: {} };
    S.roundEnd = null;
    await showReplay();
    $("replay").hidden = false;
    document.body.classList.add("replaying");
    $("rp-prev").focus({ preventScroll: true });
  });
}

async function replayState(k) {
  const R = S.replay;
  if (R.states[k]) return R.states[k];
  const g = await api("new_game", { record: { ...R.record, actions: R.record.actions.slice(0, k) } });
  const copy = { game: g.game, token: g.tokens.owner };
  const st = (await api("state", copy)).state;
  await api("end_game", copy);
  R.states[k] = st;
  return st;
}

async function showReplay() {
  const R = S.replay;
  const n = R.record.actions.length;
  const st = await replayState(R.step);
  $("rp-step").textContent = `${R.step} / ${n}`;
  const last = R.step > 0 ? R.record.actions[R.step - 1] : null;
  $("rp-what").textContent = last ? `Action ${R.step}: player ${last.player} — ${actionText(last)}.` : "The first deal.";
  for (const p of [0, 1]) renderCards($("rp-hand" + p), st.hands[p]);
  renderTrack(st.board, st.rules);
  renderRound(st.history, st.table, st.discard);
  $("replay").dataset.shown = String(R.step);
  $("board-caption").textContent = `Replay — deal ${st.deals}, phase ${st.phase}` +
    (st.phase === "over" ? `: ${endOfGameText(winnerOf(st.board), null, "replay")}.` : ".");
}

// Steps are never dropped: keys pressed while a step loads move the
// target, and the board catches up with the latest.
async function replayStep(delta, absolute) {
  const R = S.replay;
  if (!R) return;
  const n = R.record.actions.length;
  R.step = Math.max(0, Math.min(n, absolute !== undefined ? absolute : R.step + delta));
  $("rp-step").textContent = `${R.step} / ${n}`;
  if (R.loading) { R.again = true; return; }
  R.loading = true;
  try {
    do { R.again = false; await showReplay(); } while (R.again && S.replay === R);
  } catch (err) {
    showError(err);
  } finally {
    R.loading = false;
  }
}

function closeReplay() {
  S.replay = null;
  $("replay").hidden = true;
  document.body.classList.remove("replaying");
  render();
}

// ------------------------------------------------------------------ drawing

const SVG_CAT = `<svg viewBox="0 0 64 64" class="cat" role="img" aria-label="the cat"><g>
<path d="M10 26 L14 6 L28 18 Q32 17 36 18 L50 6 L54 26 Q58 34 54 44 Q46 58 32 58 Q18 58 10 44 Q6 34 10 26Z" fill="#f28c28" stroke="#7a3e0b" stroke-width="2.5"/>
<path d="M16 12 L19 22 L25 18Z M48 12 L45 22 L39 18Z" fill="#ffd1a6"/>
<ellipse cx="23" cy="34" rx="4" ry="5" fill="#2b2b2b"/><ellipse cx="41" cy="34" rx="4" ry="5" fill="#2b2b2b"/>
<circle cx="24.5" cy="32.5" r="1.4" fill="#fff"/><circle cx="42.5" cy="32.5" r="1.4" fill="#fff"/>
<path d="M29 42 L35 42 L32 45Z" fill="#e0577a"/><path d="M32 45 Q28 50 24 47 M32 45 Q36 50 40 47" fill="none" stroke="#7a3e0b" stroke-width="2"/>
<path d="M6 40 L18 41 M6 46 L18 44 M58 40 L46 41 M58 46 L46 44" stroke="#7a3e0b" stroke-width="1.5"/></g></svg>`;

// The board: goal, seven spaces, goal.  `from`: the cat's space before a
// round's end, to show it moving.
function renderTrack(board, rules, from) {
  const track = $("track");
  // Drawn again only when it changed: a redraw would cut the cat's walk short.
  const key = JSON.stringify([board, rules.board, rules.arrows, S.seat, !!S.replay]);
  if (from === undefined && track.dataset.key === key) return;
  track.dataset.key = key;
  track.innerHTML = "";
  const covered = new Set(board.covered);
  const cells = {};
  const cell = (cls, html, label, index) => {
    const li = document.createElement("li");
    li.className = cls;
    li.innerHTML = html;
    li.setAttribute("aria-label", label);
    track.append(li);
    cells[index] = li;
    return li;
  };
  const goal = (p) => {
    const mine = !S.replay && p === S.seat;
    const at = p === 0 ? -1 : 7;
    const name = S.replay ? `player ${p}` : mine ? "your goal" : S.mode === "friend" ? "friend's goal" : "engine's goal";
    const li = cell(`goal goal${p}${mine ? " mine" : ""}${board.cat === at ? " has-cat" : ""}`,
      `<span class="goal-name">${name}</span>`, `${name}${board.cat === at ? ", the cat is here" : ""}`, at);
    if (board.cat === at) li.insertAdjacentHTML("beforeend", SVG_CAT);
  };
  goal(0);
  for (let i = 0; i < 7; i++) {
    const arrow = rules.arrows[i];
    const arrowHtml = arrow === "both" ? "&#x21C6;" : arrow === "p0" ? "&#x2190;" : "&#x2192;";
    const arrowWord = arrow === "both" ? "both replace freely" : `player ${arrow === "p0" ? 0 : 1} replaces first`;
    const cls = ["space", covered.has(i) ? "covered" : "", board.cat === i ? "has-cat" : "", i === 3 ? "centre" : ""].join(" ");
    const li = cell(cls, `<span class="size">${rules.board[i]}</span><span class="arrow" title="${arrowWord}">${arrowHtml}</span>`,
      `space ${i}: deals ${rules.board[i]}, ${arrowWord}${covered.has(i) ? ", covered by a tile" : ""}${board.cat === i ? ", the cat is here" : ""}`, i);
    if (covered.has(i)) li.insertAdjacentHTML("beforeend", `<span class="tile" aria-hidden="true"></span>`);
    if (board.cat === i) li.insertAdjacentHTML("beforeend", SVG_CAT);
  }
  goal(1);
  // The cat walks from the space it left (covered by its new tile, R18).
  if (from !== undefined && from !== board.cat && cells[from] && cells[board.cat]) {
    const cat = cells[board.cat].querySelector("svg.cat");
    const a = cells[from].getBoundingClientRect(), b = cells[board.cat].getBoundingClientRect();
    const dx = (a.left + a.width / 2) - (b.left + b.width / 2);
    const tile = cells[from].querySelector(".tile");
    if (cat && cat.animate) {
      cat.animate([{ transform: `translateX(${dx}px) scale(1.15)` }, { transform: "translateX(0) scale(1.15)", offset: 0.75 },
        { transform: "none" }], { duration: 1100, easing: "ease-in-out" });
    }
    if (tile && tile.animate) tile.animate([{ opacity: 0, transform: "scale(0.6)" }, { opacity: 0, offset: 0.5 }, { opacity: 1, transform: "none" }], { duration: 1100 });
  }
}

function cardEl(rank, opts = {}) {
  const el = document.createElement(opts.button ? "button" : "span");
  el.className = `card r${rank}${opts.small ? " small" : ""}${opts.big ? " big" : ""}`;
  el.innerHTML = `<span class="corner">${rank}</span><span class="rank">${rank}</span><span class="corner low">${rank}</span>`;
  el.style.setProperty("--hue", String(Math.round(220 - (rank - 1) * 19)));
  return el;
}

function renderCards(box, cards, opts = {}) {
  box.innerHTML = "";
  if (!cards || !cards.length) { box.innerHTML = `<span class="empty">—</span>`; return; }
  for (const c of cards) box.append(cardEl(c, opts));
}

function renderHand() {
  const box = $("my-hand");
  box.innerHTML = "";
  const v = S.view;
  if (!v) return;
  const decision = myDecision();
  const hand = S.roundEnd ? [] : v.hand;  // the next deal's hand waits until the player goes on
  hand.forEach((c, i) => {
    const el = cardEl(c, { button: true });
    el.type = "button";
    el.setAttribute("aria-pressed", S.selected.has(i) ? "true" : "false");
    el.setAttribute("aria-label", `card ${c}${i < 9 ? `, key ${i + 1}` : ""}`);
    el.dataset.index = String(i);
    if (S.selected.has(i)) el.classList.add("selected");
    if (i < 9) el.insertAdjacentHTML("beforeend", `<kbd class="key">${i + 1}</kbd>`);
    el.disabled = !decision || S.busy;
    el.addEventListener("click", () => toggle(i));
    box.append(el);
  });
  if (!hand.length) box.innerHTML = `<span class="empty">${S.roundEnd ? "The next deal waits: press Enter." : "—"}</span>`;
  $("play").disabled = S.busy || !decision;
  $("play").textContent = "";
  $("play").append(playLabel(decision), " ");
  $("play").insertAdjacentHTML("beforeend", "<kbd>Enter</kbd>");
}

function playLabel(decision) {
  const n = S.selected.size;
  switch (decision) {
    case "replace": return n ? `Replace ${n} card${n > 1 ? "s" : ""}` : "Keep all";
    case "duel": return "Duel";
    case "attack": return "Attack";
    case "answer": return "Answer";
    default: return "Play";
  }
}

function toggle(i) {
  if (!myDecision() || S.busy) return;
  if (S.selected.has(i)) S.selected.delete(i); else S.selected.add(i);
  $("choice").innerHTML = "";
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.index : undefined;
  renderHand();
  // keep the focus where it was (a card re-drawn keeps it; keys 1-9 leave it on Play)
  if (focused !== undefined) { const el = $("my-hand").querySelector(`[data-index="${focused}"]`); if (el) el.focus({ preventScroll: true }); }
}

function promptText() {
  if (!S.view) return "Start a new game.";
  if (S.roundEnd) return `Round over. Press Enter or Space, or click ${S.roundEnd.over ? "“See the result”" : "“Next deal”"}, to go on.`;
  if (S.over) return endOfGameText(S.winner, S.seat, "prompt");
  const d = myDecision();
  const v = S.view;
  switch (d) {
    case "replace": {
      const cap = v.replace_cap === null || v.replace_cap === undefined ? "any number of" : `at most ${v.replace_cap}`;
      return `Replace: select ${cap} cards to discard (face up) and draw as many (R7–R8), or keep all.`;
    }
    case "duel": return "Duel: choose one card in secret; the higher attacks first (R9).";
    case "attack": return `Attack: a single card, a set, or a sequence of three or more — keep at least one card (R10–R11).`;
    case "answer": return `Answer ${fmtCards(v.table)}: one card per attack card; a card that does not beat must be your lowest (R12).`;
    default: return S.mode === "friend" ? "Waiting for your friend…" : "Waiting for the engine…";
  }
}

function renderRound(history, table, seenCards) {
  // the table: an attack waiting for its answer
  const t = $("table");
  t.innerHTML = "";
  if (table && table.length) {
    const p = document.createElement("div");
    p.className = "attack-on-table";
    p.append(Object.assign(document.createElement("span"), { className: "label", textContent: "Attack on the table" }));
    const cards = document.createElement("div");
    cards.className = "hand";
    for (const c of table) cards.append(cardEl(c));
    p.append(cards);
    t.append(p);
  }
  // the tricks and other public events of this round
  const list = $("tricks");
  list.innerHTML = "";
  let attack = null;
  for (const e of history || []) {
    if (e.event === "deal" || (e.event === "showdown" && S.roundEnd && !S.replay)) continue;  // the round's end has its own panel
    const li = document.createElement("li");
    if (e.event === "attack") { attack = e; continue; }
    if (e.event === "answer" && attack) {
      const won = e.beats ? e.player : 1 - e.player;
      li.className = "trick";
      li.innerHTML = `<span class="who">${who(attack.player)}</span>`;
      const a = document.createElement("span"); a.className = "hand small";
      for (const c of attack.cards) a.append(cardEl(c, { small: true }));
      const b = document.createElement("span"); b.className = "hand small";
      for (const c of e.cards) b.append(cardEl(c, { small: true }));
      li.append(a, Object.assign(document.createElement("span"), { className: "vs", textContent: "answered by" }), b,
        Object.assign(document.createElement("span"), {
          className: "won" + (!S.replay && won === S.seat ? " good" : ""),
          textContent: `${whom(won)} ${wins(won)} the trick`,
        }));
      attack = null;
    } else {
      li.className = "event";
      li.textContent = eventText(e);
    }
    list.append(li);
  }
  if (attack) {
    const li = document.createElement("li");
    li.className = "event";
    li.textContent = eventText(attack);
    list.append(li);
  }
  if (!list.children.length) list.innerHTML = `<li class="event quiet">Nothing played yet this round.</li>`;
  list.scrollTop = list.scrollHeight;
  updateCue();
  const seen = [...(seenCards || [])].sort((a, b) => a - b);
  renderCards($("seen"), seen, { small: true });
}

// The end of a round, face up: both last cards, who won it, the cat's move.
function renderRoundEnd() {
  const R = S.roundEnd;
  const box = $("round-end");
  document.body.classList.toggle("round-over", !!R);
  if (!R) { box.hidden = true; return; }
  const sd = R.showdown;
  const opp = 1 - S.seat;
  // A round's winner (R17), never the game's: a drawn round has none.
  const side = sd.winner === null ? "draw" : sd.winner === opp ? "engine" : "me";
  box.hidden = false;
  box.dataset.winner = side;
  $("re-title").textContent = `${R.round ? `Round ${R.round}: ` : ""}showdown — the lower card wins (R17)`;
  renderCards($("re-me"), [sd.cards[S.seat]], { big: true });
  renderCards($("re-opp"), [sd.cards[opp]], { big: true });
  $("re-me").parentElement.classList.toggle("winner", side === "me");
  $("re-opp").parentElement.classList.toggle("winner", side === "engine");
  $("re-verdict").textContent = { draw: `${sd.cards[0]} and ${sd.cards[1]}: a drawn round.`,
    me: "You win the round!", engine: `${oppName()} wins the round.` }[side];
  $("re-cat").textContent = catMoveText(sd, R.from, R.to, R.over);
  $("next").textContent = "";
  $("next").append(R.over ? "See the result " : "Next deal ");
  $("next").insertAdjacentHTML("beforeend", "<kbd>Enter</kbd>");
}

function renderLegal() {
  const box = $("legal");
  box.innerHTML = "";
  const d = myDecision();
  if (!d || d === "replace" || S.busy) return;
  box.append(Object.assign(document.createElement("span"), { className: "label", textContent: "Legal moves:" }));
  for (const a of S.legal.slice(0, 40)) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "chip";
    b.textContent = actionText(a);
    b.addEventListener("click", () => run(() => play(a), thinkingText()));
    box.append(b);
  }
}

function renderLog() {
  const ol = $("log");
  ol.innerHTML = "";
  for (const entry of S.log.slice(-80)) {
    const li = document.createElement("li");
    li.className = entry.kind;
    li.textContent = entry.text;
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;  // inside its own box: the page does not move
}

function render() {
  const v = S.view;
  if (!v) {
    renderTrack({ cat: 3, covered: [] }, { arrows: ["p1", "p1", "p1", "both", "p0", "p0", "p0"], board: [4, 6, 9, 7, 9, 6, 4] });
    renderRound([], [], []);
    $("board-caption").textContent = "Choose an opponent and press New game.";
    $("prompt").textContent = promptText();
    $("hint").disabled = true;
    $("play").disabled = true;
    return;
  }
  const R = S.roundEnd;
  if (!S.replay) {
    const animate = R && !R.animated;
    if (R) R.animated = true;
    renderTrack(v.board, v.rules, animate ? R.from : undefined);
    if (R) renderRound(R.history, [], []);
    else renderRound(v.history, v.table, v.seen);
    const rounds = v.rounds.length;
    $("board-caption").textContent = S.over && !R
      ? `Game over after ${rounds} rounds: ${endOfGameText(S.winner, S.seat, "caption")}.`
      : R ? `Round ${R.round || rounds} is over.`
      : `Round ${rounds + 1} — ${v.history[0] ? v.history[0].hand_size : "?"} cards each; draw pile ${v.draw_pile_size}. Move the cat into your goal to win (R18–R19).`;
  }
  renderRoundEnd();
  $("opp-title").textContent = S.mode === "friend" ? `Your friend (player ${1 - S.seat})`
    : `The engine — ${opponentLabel()} (player ${1 - S.seat})`;
  const backs = $("opp-hand");
  backs.innerHTML = "";
  const n = R ? 0 : v.opponent_hand_size;
  for (let i = 0; i < n; i++) {
    const b = document.createElement("span");
    b.className = "card back";
    backs.append(b);
  }
  backs.setAttribute("aria-label", `${plural(n, "card")}, face down`);
  $("opp-note").textContent = R ? "" : `${plural(n, "card")} face down` +
    (v.my_pending ? " — it has chosen too; both are shown together" : "") +
    (v.phase === "play" && v.attacker === 1 - S.seat && !v.table.length ? " — attacks next" : "");
  $("my-title").textContent = `Your hand (player ${S.seat})` + (!R && v.phase === "play" && v.attacker === S.seat && !v.table.length ? " — you attack" : "");
  renderHand();
  renderLegal();
  renderHint();
  renderLog();
  renderGameOver();
  renderInvite();
  if (!S.busy) $("prompt").textContent = promptText();
  $("hint").disabled = S.busy || !myDecision();
  $("replay-open").hidden = !S.over || !!R;
  document.body.dataset.phase = R ? "round-end" : S.over ? "over" : v.phase;
  document.body.dataset.decision = myDecision() || "";
  document.body.dataset.mode = S.mode;
  schedulePoll();
}

// The end of the game: who won, the score by rounds, and what next.
function renderGameOver() {
  const box = $("game-over");
  const show = !!(S.view && S.over && !S.roundEnd && !S.replay);
  box.hidden = !show;
  document.body.classList.toggle("game-done", show);
  if (!show) return;
  const rounds = S.view.rounds;
  const won = [0, 1].map((p) => rounds.filter((r) => r.winner === p).length);
  const drawn = rounds.filter((r) => r.winner === null).length;
  box.dataset.winner = sideOf(S.winner, S.seat);
  $("go-title").textContent = `Game over after ${plural(rounds.length, "round")}`;
  $("go-verdict").textContent = endOfGameText(S.winner, S.seat, "log");
  $("go-score").textContent = `Rounds won: you ${won[S.seat]}, ${oppWord()} ${won[1 - S.seat]}` +
    (drawn ? `, ${plural(drawn, "drawn round")}` : "") + ". The cat went the winner's way after every round won (R18).";
  $("go-me-col").textContent = "your last card";
  $("go-opp-col").textContent = `${S.mode === "friend" ? "friend's" : "engine's"} last card`;
  const body = $("go-rounds").querySelector("tbody");
  body.innerHTML = "";
  rounds.forEach((r, i) => {
    const tr = document.createElement("tr");
    const to = { draw: "drawn", me: "you", engine: oppWord() }[sideOf(r.winner, S.seat)];
    if (r.winner === S.seat) tr.className = "mine";
    for (const c of [i + 1, place(r.cat), r.hand_size, r.last[S.seat], r.last[1 - S.seat], to]) {
      const td = document.createElement("td");
      td.textContent = String(c);
      tr.append(td);
    }
    body.append(tr);
  });
  $("rematch").textContent = "";
  $("rematch").append(S.mode === "friend" ? "Rematch: a new game and link for your friend " : `Rematch: ${opponentLabel()}, you as player ${S.seat} `);
  $("rematch").insertAdjacentHTML("beforeend", "<kbd>M</kbd>");
}

function renderInvite() {
  const box = $("invite");
  const show = !!(S.invite && S.mode === "friend" && !S.over);
  box.hidden = !show;
  if (show && $("invite-link").value !== S.invite) { $("invite-link").value = S.invite; $("invite-status").textContent = ""; }
  $("restore").hidden = !localStorage.getItem(STORE_LAST);
}

async function copyInvite() {
  const input = $("invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch (err) {  // no clipboard access (an insecure origin, a refused permission): select it for the keys
    input.select();
    document.execCommand && document.execCommand("copy");
  }
  $("invite-status").textContent = "Copied: send it to your friend. This page follows the game as they play.";
}

// The round so far scrolls in its own box, the latest trick last: a cue
// says when earlier tricks are above, out of sight, and brings them back.
function updateCue() {
  const list = $("tricks"), cue = $("tricks-cue");
  const above = [...list.children].filter((li) => li.offsetTop - list.offsetTop + li.offsetHeight <= list.scrollTop + 1).length;
  cue.hidden = above === 0;
  cue.textContent = `\u25B2 ${plural(above, "earlier line")} — scroll up`;
  list.parentElement.classList.toggle("scrolled", above > 0);
}

// ------------------------------------------------------------------ keys

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (!$("confirm").hidden) {  // the confirmation first: Esc keeps the game, its buttons take Enter
    if (e.key === "Escape") { e.preventDefault(); closeConfirm(); }
    return;
  }
  if (S.replay) {
    if (e.key === "ArrowLeft") { replayStep(-1); e.preventDefault(); return; }
    if (e.key === "ArrowRight") { replayStep(1); e.preventDefault(); return; }
    if (e.key === "Home") { replayStep(0, 0); e.preventDefault(); return; }
    if (e.key === "End") { replayStep(0, S.replay.record.actions.length); e.preventDefault(); return; }
    if (e.key === "Escape") { closeReplay(); return; }
  }
  if (S.roundEnd) {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); continueRound(); }
    else if (e.key === "Escape") clearMessage();
    return;
  }
  if (/^[1-9]$/.test(e.key)) { toggle(Number(e.key) - 1); e.preventDefault(); return; }
  const key = e.key.toLowerCase();
  if (e.key === "Enter" && !(e.target instanceof HTMLButtonElement)) { playSelected(); e.preventDefault(); }
  else if (e.key === "Escape") { S.selected.clear(); $("choice").innerHTML = ""; clearMessage(); renderHand(); }
  else if (key === "h") hint();
  else if (key === "n") newGame();
  else if (key === "f") requestGame(formSettings("friend"));
  else if (key === "m" && S.over && !S.replay) rematch();
  else if (key === "r" && S.over && !S.replay) openReplay();
});
// Space goes on from a round's end on its key-up too: never let it click Play.
document.addEventListener("keyup", (e) => {
  if (e.key === " " && performance.now() < S.ignoreKeysUntil) e.preventDefault();
});

$("setup").addEventListener("submit", newGame);
$("play").addEventListener("click", () => playSelected());
$("clear").addEventListener("click", () => { S.selected.clear(); clearMessage(); renderHand(); });
$("friend-game").addEventListener("click", () => requestGame(formSettings("friend")));
$("restore").addEventListener("click", restoreLast);
$("confirm-yes").addEventListener("click", confirmed);
$("confirm-no").addEventListener("click", closeConfirm);
$("invite-copy").addEventListener("click", copyInvite);
$("rematch").addEventListener("click", rematch);
$("go-replay").addEventListener("click", openReplay);
$("go-new").addEventListener("click", () => newGame());
$("tricks").addEventListener("scroll", updateCue, { passive: true });
$("tricks-cue").addEventListener("click", () => $("tricks").scrollTo({ top: 0, behavior: "smooth" }));
// An invite link opened in a tab that shows the board already changes only the hash.
window.addEventListener("hashchange", () => {
  if (!/^#join=/.test(location.hash) || S.busy) return;
  stopPolling();
  if (joinFromLink()) run(refresh, "Joining…");
});
document.addEventListener("visibilitychange", () => { if (!document.hidden && S.pollTimer !== null) { stopPolling(); schedulePoll(); } });
$("hint").addEventListener("click", hint);
$("next").addEventListener("click", continueRound);
$("round-end").addEventListener("click", (e) => { if (e.target === e.currentTarget) continueRound(); });
$("rp-first").addEventListener("click", () => replayStep(0, 0));
$("rp-prev").addEventListener("click", () => replayStep(-1));
$("rp-next").addEventListener("click", () => replayStep(1));
$("rp-last").addEventListener("click", () => replayStep(0, S.replay ? S.replay.record.actions.length : 0));
$("rp-close").addEventListener("click", closeReplay);
$("replay-open").addEventListener("click", openReplay);

render();
loadOpponents()
  .then(resume)
  .then((resumed) => { if (!resumed) render(); })
  .finally(() => { document.body.dataset.ready = "1"; });
