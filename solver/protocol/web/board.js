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
"use strict";

const BASE = "";  // same origin; a page elsewhere would put the engine's URL here
const STORE = "tacocat-board";

const $ = (id) => document.getElementById(id);
const S = {
  game: null, token: null, seat: 0, opponent: "level:3", seed: null,
  view: null, legal: [], selected: new Set(), over: false, winner: null,
  log: [], busy: false, hint: null, replay: null,
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
const who = (p) => (S.replay ? `Player ${p}` : p === S.seat ? "You" : "The engine");
const whom = (p) => (S.replay ? `player ${p}` : p === S.seat ? "you" : "the engine");
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
        : `${who(e.player)} kept all ${S.replay ? "their" : e.player === S.seat ? "your" : "its"} cards.`;
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

// The end of a game in words, for `seat` (null: no seat, as in a replay):
// "log" a line of the game log, "prompt" the prompt, "caption" the board's
// caption after "Game over after N rounds: ", "replay" the replay's caption.
function endOfGameText(winner, seat, form) {
  if (winner === null || winner === undefined) {
    return { log: `A ${DRAWN}: no winner.`, prompt: `A ${DRAWN}. Press R to replay it.`,
      caption: DRAWN, replay: DRAWN }[form];
  }
  const mine = winner === seat;
  return {
    log: mine ? "You win the game!" : "The engine wins the game.",
    prompt: mine ? "You won the game. Press R to replay it." : "The engine won the game. Press R to replay it.",
    caption: mine ? "you win" : "the engine wins",
    replay: `player ${winner} won`,
  }[form];
}

const place = (cat) => (cat < 0 ? "player 0's goal" : cat > 6 ? "player 1's goal" : `space ${cat}`);

// What a round's end did to the board, in words (R17–R19).
function catMoveText(showdown, from, to, over) {
  if (showdown.winner === null) return `A drawn round: the cat stays on ${place(from)} and the cards are dealt again (R17).`;
  const goal = to < 0 || to > 6;
  const where = goal ? (winnerOf({ cat: to }) === S.seat ? "your goal" : "the engine's goal") : place(to);
  return `The cat moves from space ${from} to ${where}; a tile covers space ${from} (R18).` +
    (goal ? ` ${endOfGameText(winnerOf({ cat: to }), S.seat, "log")}` : over ? ` ${endOfGameText(null, S.seat, "log")}` : "");
}

// ------------------------------------------------------------------ state

function save() {
  if (!S.game) return;
  // Only this seat's token is kept: the page never holds another.
  localStorage.setItem(STORE, JSON.stringify({
    game: S.game, token: S.token, seat: S.seat, opponent: S.opponent, seed: S.seed, log: S.log.slice(-200),
  }));
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
  S.roundEnd = null;
  S.ignoreKeysUntil = performance.now() + 350;  // the key that went on must not also play
  // a later showdown in the same answer starts where this one left the cat
  takeAnswer(R.rest, R.status, { board: { cat: R.to }, rounds: { length: R.round || 0 }, history: [] });
  render();
  focusPlay();
}

async function refresh() {
  const v = await api("view", withToken({ game: S.game, player: S.seat }));
  S.view = v.view;
  S.over = S.view.phase === "over";
  S.winner = S.over ? winnerOf(S.view.board) : null;
  const legal = await api("legal", withToken({ game: S.game, player: S.seat }));
  S.legal = legal.actions;
  S.selected.clear();
  save();
  render();
}

// The opponent select's value ("level:3", "bot:pimc:250") as new_game's
// engine fields.
function opponentRequest() {
  const [kind, name, ms] = S.opponent.split(":");
  if (kind === "level") return { level: Number(name) };
  const req = { bot: name };
  if (ms) req.time_ms = Number(ms);
  return req;
}

function opponentLabel() {
  const opt = [...$("opponent").options].find((o) => o.value === S.opponent);
  return opt ? opt.textContent : S.opponent;
}

const LEVEL_WORDS = { 1: "random", 2: "heuristic", 3: "PIMC, 1 deal", 4: "PIMC, 6 deals", 5: "PIMC, 25 deals" };
const BOT_WORDS = { random: "random", heuristic: "heuristic", pimc: "PIMC", ismcts: "ISMCTS", pimc_eq: "PIMC, equilibrium duels" };
const TIMED_MS = 250;
const HINT_HELP = "On your turn, Hint (H) ranks your moves with their odds.";

// The opponents the engine offers a seat: hello's `levels` and `bots` (the
// bots that choose from a seat's view; never one that reads the other hand).
async function loadOpponents() {
  let hello;
  try { hello = await api("hello"); } catch (err) { return; }
  const select = $("opponent");
  const keep = select.value;
  select.innerHTML = "";
  for (const level of Object.keys(hello.levels || {}).sort((a, b) => a - b)) {
    select.append(new Option(`Level ${level} — ${LEVEL_WORDS[level] || hello.levels[level]}`, `level:${level}`));
  }
  for (const bot of hello.bots || []) {
    const timed = bot !== "random" && bot !== "heuristic";
    select.append(new Option(`${BOT_WORDS[bot] || bot}${timed ? `, ${TIMED_MS} ms a move` : ""}`,
      timed ? `bot:${bot}:${TIMED_MS}` : `bot:${bot}`));
  }
  select.value = [...select.options].some((o) => o.value === (S.game ? S.opponent : keep)) ? (S.game ? S.opponent : keep) : "level:3";
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
  run(() => play(action), "The engine is thinking…");
}

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

async function newGame(event) {
  if (event) event.preventDefault();
  S.opponent = $("opponent").value;
  S.seat = Number($("seat").value);
  const seedText = $("seed").value.trim();
  // The engine plays the other seat on the server; a seed only when the
  // player chose one (the seed decides every deal: the server keeps it).
  const fields = { engine: { seat: 1 - S.seat, ...opponentRequest() } };
  if (seedText) fields.seed = Number(seedText);
  await run(async () => {
    const g = await api("new_game", fields);
    S.game = g.game; S.token = g.tokens.seats[S.seat]; S.seed = g.seed;
    S.log = []; S.hint = null; S.replay = null; S.roundEnd = null;
    $("replay").hidden = true;
    document.body.classList.remove("replaying");
    clearMessage();
    addLog(`New game against ${opponentLabel()}${g.seed === null || g.seed === undefined ? "" : `, seed ${g.seed}`}. ` +
      `You are player ${S.seat}.`, "system");
    addLog(`Your hand: ${fmtCards(g.hand)}.`, "system");
    takeAnswer(g.events, g, null);
    await refresh();
  }, "Dealing…");
}

async function resume() {
  const saved = JSON.parse(localStorage.getItem(STORE) || "null");
  if (!saved || !saved.game) return false;
  // A board saved before the engine mode kept every seat's token: keep this
  // seat's only.
  const token = saved.token || (saved.tokens && Array.isArray(saved.tokens.seats) ? saved.tokens.seats[saved.seat] : null);
  Object.assign(S, { game: saved.game, token, seat: saved.seat, opponent: saved.opponent,
    seed: saved.seed ?? null, log: saved.log || [] });
  if ([...$("opponent").options].some((o) => o.value === S.opponent)) $("opponent").value = S.opponent;
  $("seat").value = String(S.seat);
  try {
    await refresh();
  } catch (err) {
    localStorage.removeItem(STORE);
    Object.assign(S, { game: null, token: null, view: null, log: [] });
    return false;
  }
  addLog("Resumed the game after a reload.", "system");
  return true;
}

// ------------------------------------------------------------------ hint

async function hint() {
  if (!myDecision() || S.busy) return;
  const status = $("hint-status");
  status.textContent = "Searching…";
  const fields = { game: S.game, player: S.seat, top: 8 };
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
    const how = result.exact ? "exact: every possible opponent hand" : `${result.method}, ${result.samples ?? result.iterations ?? "?"} samples`;
    status.textContent = `Best: ${actionText(result.best)} — ${how}.`;
  }, "Searching for a hint…");
  // On a phone the hint sits below the hand: bring it up once, when it came.
  if (S.hint && window.matchMedia("(max-width: 899px)").matches) {
    $("hint-area").scrollIntoView({ block: "nearest", behavior: "smooth" });
  }
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
  S.hint.moves.forEach((m, i) => {
    const tr = document.createElement("tr");
    tr.tabIndex = 0;
    tr.title = "Select these cards (Enter)";
    const cells = [i + 1, actionText(m), pct(m.win), pct(m.draw), pct(m.loss), pct(m.game_win)];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.append(td); }
    const pick = () => selectCards(m.cards);
    tr.addEventListener("click", pick);
    // preventDefault: the Enter that picks must not also press Play, which has the focus by then
    tr.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); e.stopPropagation(); pick(); } });
    body.append(tr);
  });
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
    const name = S.replay ? `player ${p}` : mine ? "your goal" : "engine's goal";
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
    default: return "Waiting for the engine…";
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
    me: "You win the round!", engine: "The engine wins the round." }[side];
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
    b.addEventListener("click", () => run(() => play(a), "The engine is thinking…"));
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
  $("opp-title").textContent = `The engine — ${opponentLabel()} (player ${1 - S.seat})`;
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
  if (!S.busy) $("prompt").textContent = promptText();
  $("hint").disabled = S.busy || !myDecision();
  $("replay-open").hidden = !S.over || !!R;
  document.body.dataset.phase = R ? "round-end" : S.over ? "over" : v.phase;
  document.body.dataset.decision = myDecision() || "";
}

// ------------------------------------------------------------------ keys

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (S.replay) {
    if (e.key === "ArrowLeft") { replayStep(-1); e.preventDefault(); return; }
    if (e.key === "ArrowRight") { replayStep(1); e.preventDefault(); return; }
    if (e.key === "Home") { replayStep(0, 0); e.preventDefault(); return; }
    if (e.key === "End") { replayStep(0, S.replay.record.actions.length); e.preventDefault(); return; }
    if (e.key === "Escape") { closeReplay(); return; }
  }
  if (S.roundEnd) {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); continueRound(); }
    return;
  }
  if (/^[1-9]$/.test(e.key)) { toggle(Number(e.key) - 1); e.preventDefault(); return; }
  const key = e.key.toLowerCase();
  if (e.key === "Enter" && !(e.target instanceof HTMLButtonElement)) { playSelected(); e.preventDefault(); }
  else if (e.key === "Escape") { S.selected.clear(); $("choice").innerHTML = ""; renderHand(); }
  else if (key === "h") hint();
  else if (key === "n") newGame();
  else if (key === "r" && S.over && !S.replay) openReplay();
});
// Space goes on from a round's end on its key-up too: never let it click Play.
document.addEventListener("keyup", (e) => {
  if (e.key === " " && performance.now() < S.ignoreKeysUntil) e.preventDefault();
});

$("setup").addEventListener("submit", newGame);
$("play").addEventListener("click", () => playSelected());
$("clear").addEventListener("click", () => { S.selected.clear(); renderHand(); });
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
