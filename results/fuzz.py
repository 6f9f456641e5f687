"""The long fuzz run of issue 12: hostile inputs at every door, counted.

    python results/fuzz.py                      # the issue's run, writes results/fuzz.md
    python results/fuzz.py --protocol 500 --http 200 --cli 100 --files 50 --subprocesses 10 --out -

Doors (strategies and checks in tests/fuzz_doors.py, a short round of each
in tests/test_fuzz_doors.py):

- protocol: requests to an in-process `EngineSession` (searches capped at
  100 ms) — every answer strict JSON, its code in the table, no `internal`,
  a failed request leaves every game byte for byte as it was;
- http: the same requests and raw bodies to uvicorn on 127.0.0.1 over a
  real socket — documented status, no 500, strict-JSON bodies;
- cli: `tacocat` command lines in-process (CliRunner) and some as real
  subprocesses — exit 0 or 2, one `error:` line, no traceback, strict JSON;
- files: fuzzed ruleset (JSON, TOML, raw bytes), record, view and position
  files through the commands that read them;
- cross-seat (protocol 3.0, issue 20): seat tokens used for the other seat,
  for the engine's seat of a game against the engine, for state/record while
  the game runs, on another game — in process and over HTTP — always
  `forbidden` (403), the game unchanged, no card of the other seat shown;
- cross-client: client B over HTTP beside client A's running searches —
  B's stop, busy, games and set_rules never stop or name A's searches,
  games or tokens, and set_rules is refused;
- two-process: a second `tacocat serve` / `tacocat engine --store` on a
  store another process holds, the path spelled every way (relative, dots,
  symlinks, a hard link, serve's default) — exit 2 in one line, the holder
  serving on, the store 0600;
- browser-origin: text/plain and form POSTs, foreign Host and Origin to a
  server built as `serve` builds it — the documented 415/421/403 with a JSON
  error body, no game created.

Issue 33's doors (a shared server no client can take down):

- bounded-search: `move`/`hint` with the largest budgets a client may ask
  (a billion samples, an hour), every searching bot and levels, `apply`
  true or false, on a shared session capped at 500 ms, stopped by its owner,
  by another client or by nobody — every answer within the cap plus a
  margin, the owner's stop answered within 0.5 s, another client's ending
  nothing, a legal move and no card the seat cannot see;
- engine-seat: games against an engine seat with fuzzed engine fields over
  the JSON Lines transport (`tacocat engine --max-time-ms 2000`), applies
  interleaved with hello, stop, legal, view, games and hints sent without
  waiting — those answered within 1 s while the engine thinks, its reply
  ended by the stop within 0.5 s, no card of the engine's hand anywhere;
- fair-share: one peer (127.0.0.1) floods games (with the board's Origin
  spelt every way), searches and connections (trickled bodies, half heads,
  silent and kept-alive ones) while another peer (127.0.0.2) is served —
  never `busy`, every answer within 5 s;
- operator-flags: fuzzed `tacocat serve` flags (non-finite numbers, values
  out of range, short admin tokens, bad origins and hosts) — a value the
  documented ranges refuse is exit 2 in one `error:` line; a server that
  starts answers hello and new_game (some as real processes, ended by
  SIGTERM within 2 s);
- records: game records with unknown keys (top, action, ruleset) or game
  fields of the wrong type through new_game and `tacocat analyze` —
  `bad_record` (`bad_ruleset` for the ruleset), exit 2; controls accepted.

A hang is any answer slower than 10 s (60 s for a command line)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import fuzz_doors as fz  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tacocat.protocol.session import EngineSession  # noqa: E402


def run(strategy, n: int, seed_: int, send) -> None:
    @seed(seed_)
    @settings(
        max_examples=n, phases=[Phase.generate], database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(strategy)
    def loop(item):
        send(item)

    loop()


def progress(door: fz.Door, total: int, t0: float) -> None:
    if door.tried % max(1, total // 10) == 0:
        print(
            f"  {door.name}: {door.tried}/{total}, {len(door.failures)} failures, {time.perf_counter() - t0:.0f} s",
            file=sys.stderr,
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--protocol", type=int, default=10_000)
    ap.add_argument("--http", type=int, default=5_000)
    ap.add_argument("--cli", type=int, default=2_000)
    ap.add_argument("--subprocesses", type=int, default=60, help="of the --cli invocations, run as real processes")
    ap.add_argument("--files", type=int, default=1_000)
    ap.add_argument("--cross-seat", type=int, default=2_000, help="half in process, half over HTTP")
    ap.add_argument("--cross-client", type=int, default=1_000)
    ap.add_argument("--two-process", type=int, default=40, help="second processes (each a real tacocat)")
    ap.add_argument("--browser-origin", type=int, default=2_000)
    ap.add_argument("--bounded-search", type=int, default=400)
    ap.add_argument("--engine-seat", type=int, default=300, help="games against the engine (several requests each)")
    ap.add_argument("--fair-share", type=int, default=300, help="floods (several victim requests each)")
    ap.add_argument("--operator-flags", type=int, default=600)
    ap.add_argument("--flag-subprocesses", type=int, default=20, help="of the --operator-flags, run as real servers")
    ap.add_argument("--records", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--out", default=str(HERE / "fuzz.md"), help="the table's file, or - for stdout")
    args = ap.parse_args()
    if args.out != "-":
        args.out = str(Path(args.out).resolve())
    args.load_before = load()
    os.chdir(tempfile.mkdtemp(prefix="tacocat-fuzz-cwd-"))  # fuzzed --save/--out paths land there
    rows: list[tuple[fz.Door, float]] = []

    def timed(door: fz.Door, total: int, strategy, send, close: bool = False) -> None:
        """Send `total` fuzzed inputs through `door` (closing it after when it holds processes or sockets)."""
        t0 = time.perf_counter()

        def counted(item):
            send(item)
            progress(door, total, t0)

        try:
            if total:
                run(strategy, total, args.seed, counted)
        finally:
            if close:
                door.close()
        rows.append((door, time.perf_counter() - t0))

    print("protocol ...", file=sys.stderr)
    proto = fz.ProtocolDoor()
    timed(proto, args.protocol, fz.protocol_requests(), proto.send)

    print("http ...", file=sys.stderr)
    session = EngineSession(max_time_ms=100, max_games=50)
    with fz.http_server(session) as base:
        http = fz.HttpDoor(base, session)
        timed(http, args.http, fz.http_bodies(), http.send_http)

    print("cli ...", file=sys.stderr)
    cli = fz.CliDoor()
    every = max(1, args.cli // max(1, args.subprocesses)) if args.subprocesses else 0

    def cli_send(item):
        argv, stdin = item
        cli.run(argv, stdin, subprocess_=bool(every) and cli.tried % every == every - 1)

    timed(cli, args.cli, fz.cli_invocations(files=["missing.json", "-"]), cli_send)

    print("files ...", file=sys.stderr)
    files = fz.FileDoor()
    timed(files, args.files, fz.fuzzed_files(), files.send_file)

    print("cross-seat ...", file=sys.stderr)
    seat = fz.CrossSeatDoor(name="cross-seat (protocol)")
    timed(seat, args.cross_seat // 2, fz.cross_seat_requests(), seat.send)
    session = EngineSession(max_time_ms=100, max_games=200)
    with fz.http_server(session) as base:
        seat_http = fz.CrossSeatDoor(session, base, name="cross-seat (http)")
        timed(seat_http, args.cross_seat - args.cross_seat // 2, fz.cross_seat_requests(), seat_http.send)

    print("cross-client ...", file=sys.stderr)
    session = EngineSession(max_time_ms=None, max_games=200, max_searches=2, max_queue=2, hint_fn=fz.waiting_hint)
    with fz.http_server(session) as base:
        client = fz.CrossClientDoor(base, session)
        timed(client, args.cross_client, fz.cross_client_requests(), client.send_http, close=True)

    print("two-process ...", file=sys.stderr)
    two = fz.TwoProcessDoor()
    timed(two, args.two_process, fz.intruders(), two.send, close=True)

    print("browser-origin ...", file=sys.stderr)
    session = EngineSession(max_time_ms=100, max_games=200)
    with fz.http_server(session, cors_origins=(fz.CORS_ORIGIN,), allowed_hosts=(fz.EXTRA_HOST,)) as base:
        browser = fz.BrowserOriginDoor(base, session)
        timed(browser, args.browser_origin, fz.browser_requests(), browser.send_browser)

    print("bounded-search ...", file=sys.stderr)
    bounded = fz.BoundedSearchDoor()
    timed(bounded, args.bounded_search, fz.bounded_searches(), bounded.send)

    print("engine-seat ...", file=sys.stderr)
    engine = fz.EngineSeatDoor()
    timed(engine, args.engine_seat, fz.engine_seat_games(), engine.send, close=True)

    print("fair-share ...", file=sys.stderr)
    session = EngineSession(
        max_time_ms=1000, max_games=fz.FAIR_GAMES, max_searches=2, max_queue=2, hint_fn=fz.waiting_hint
    )
    with fz.http_server(session, **fz.FAIR_LIMITS) as base:
        fair = fz.FairShareDoor(base, session)
        timed(fair, args.fair_share, fz.fair_share_floods(), fair.send, close=True)

    print("operator-flags ...", file=sys.stderr)
    flags = fz.OperatorFlagsDoor()
    every_flag = max(1, args.operator_flags // max(1, args.flag_subprocesses)) if args.flag_subprocesses else 0

    def flags_send(argv):
        flags.send(argv, subprocess_=bool(every_flag) and flags.tried % every_flag == every_flag - 1)

    timed(flags, args.operator_flags, fz.serve_flags(), flags_send)

    print("records ...", file=sys.stderr)
    records = fz.RecordDoor()
    timed(records, args.records, fz.bad_records(), records.send_record)

    table = render(rows, args)
    if args.out == "-":
        print(table)
    else:
        Path(args.out).write_text(table)
        print(f"wrote {args.out}", file=sys.stderr)
    failures = sum(len(d.failures) for d, _ in rows)
    print(f"{sum(d.tried for d, _ in rows)} inputs, {failures} failures", file=sys.stderr)
    sys.exit(1 if failures else 0)


def load() -> str:
    """The load averages (1, 5, 15 min), as uptime prints them."""
    try:
        return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def render(rows, args) -> str:
    out = [
        "# Fuzz run (issues 12, 20 and 33): hostile inputs at every door",
        "",
        f"`python results/fuzz.py --protocol {args.protocol} --http {args.http} --cli {args.cli} "
        f"--subprocesses {args.subprocesses} --files {args.files} --cross-seat {args.cross_seat} "
        f"--cross-client {args.cross_client} --two-process {args.two_process} --browser-origin {args.browser_origin} "
        f"--bounded-search {args.bounded_search} --engine-seat {args.engine_seat} --fair-share {args.fair_share} "
        f"--operator-flags {args.operator_flags} --flag-subprocesses {args.flag_subprocesses} "
        f"--records {args.records} --seed {args.seed}`",
        "",
        f"Ran on a shared machine ({os.cpu_count()} cores, other engineers' work beside it); load before the run: "
        f"{args.load_before}; after: {load()}. Times are wall-clock and only indicative.",
        "Strategies and checks: tests/fuzz_doors.py. A failure is an `internal` answer, an HTTP 500 or an",
        "undocumented status, an HTTP status that disagrees with the body's code, output that is not strict",
        "JSON (NaN/Infinity), a traceback, an exit status other than 0 or 2, an exit 2 without its one",
        "`error:` line, a failed request that changed a game, or a hang (an answer slower than 10 s; 60 s for",
        "a command line). At the protocol 3.0 doors also: a misused seat token answered anything but",
        "`forbidden` (403) or showing a card its seat cannot see; another client's search stopped, or its",
        "game, token or search id in an answer; `set_rules` accepted by a shared server; a second process on a",
        "held store not refused in one line (or the holder stopped, or the store not 0600); a browser-like",
        "request not refused with the documented status and a JSON error body, or a game created by it.",
        "At issue 33's doors also: a search answered past the server's cap plus a margin (500 ms + 0.25 s",
        "grace + 1.5 s), an owner's stop answered later than 0.5 s, another client's stop ending a search; a",
        "JSON Lines hello, legal, view, games or stop answered later than 1 s while the engine thinks, or a",
        "card of the engine's hand in any answer; another peer's request answered `busy` (or not at all, or",
        "later than 5 s) beside one peer's flood; a serve flag outside its documented range not refused (exit",
        "2, one line), a started server's hello or new_game failing, a server not ended 2 s after SIGTERM;",
        "a record with an unknown or mistyped key accepted, or a control refused.",
        "",
        "| door | inputs tried | answers | failures | slowest answer | wall time |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for door, seconds in rows:
        answers = ", ".join(f"{k} {v}" for k, v in sorted(door.codes.items(), key=lambda kv: -kv[1]))
        if hasattr(door, "moves"):
            answers += f" (and {door.moves:,} own-seat requests between, checked for the other seat's cards)"
        if isinstance(door, fz.BoundedSearchDoor):
            answers += (
                f" (stopped by the owner {door.stops['owner']}, by another client {door.stops['other']}, "
                f"by nobody {door.stops['nobody']}; slowest answer after an owner's stop {door.slowest_stop:.2f} s)"
            )
        if isinstance(door, fz.EngineSeatDoor):
            answers += (
                f" (in {args.engine_seat:,} games; {door.quick:,} quick commands sent while the engine thought, "
                f"the slowest answered in {door.slowest_quick:.2f} s)"
            )
        if isinstance(door, fz.FairShareDoor):
            flood = ", ".join(f"{k} {v}" for k, v in sorted(door.flood_codes.items(), key=lambda kv: -kv[1]))
            answers = f"{args.fair_share:,} floods; the victim's requests: {answers} (the flood's: {flood})"
        if isinstance(door, fz.OperatorFlagsDoor):
            answers += f" ({door.started:,} servers started and asked hello and new_game)"
        out.append(
            f"| {door.name} | {door.tried:,} | {answers} | {len(door.failures)} | "
            f"{door.slowest:.2f} s | {seconds:.0f} s |"
        )
    total = sum(d.tried for d, _ in rows)
    out += ["", f"Total: {total:,} inputs, {sum(len(d.failures) for d, _ in rows)} failures.", ""]
    for door, _ in rows:
        if door.failures:
            out.append(f"## Failures at the {door.name} door (first 20)")
            out.append("")
            out += [f"- {f}" for f in door.failures[:20]]
            out.append("")
    if "cli" in [d.name for d, _ in rows]:
        out += [
            "Command-line answers are exit statuses (0 success, 2 a refused input). The CLI door's budgets and",
            "counts (--deals, --time, --iterations, ...) take small or invalid values only, so that a valid",
            "invocation stays short; of its inputs, every "
            f"{max(1, args.cli // max(1, args.subprocesses))}th ran as a real `python -m tacocat.cli.main` subprocess.",
            "",
        ]
    if any(d.name.startswith("cross-seat") for d, _ in rows):
        out += [
            "The cross-seat doors count legal moves played between misuses (their answers checked for the",
            "other seat's cards too) in the games they misuse; the cross-client door's searches are stand-ins",
            "that wait to be stopped (client A's fill every search slot, so B's searches answer `busy`). The",
            "two-process door's answers are the second process's exit statuses.",
            "",
        ]
    if any(isinstance(d, fz.BoundedSearchDoor) for d, _ in rows):
        out += [
            "Issue 33's doors run real searches (bounded-search, engine-seat: real bots, a core each while",
            "they think) except fair-share's, which are stand-ins that wait (so that the flood's fill the",
            "queue without a core). Before they time anything, the doors import what a process's first duel",
            "imports (numpy, scipy's linprog): a server pays that once, and no stop reaches into it (below).",
            "The operator-flags door runs `tacocat serve` in process and asks a started server's app hello and",
            "new_game through Starlette's test client instead of its socket; of its inputs, every "
            f"{max(1, args.operator_flags // max(1, args.flag_subprocesses))}th ran as a real server, asked",
            "over its socket and ended by SIGTERM. A fair-share input is one flood and 1-4 requests of the",
            "victim beside it; its inputs-tried column counts the victim's requests.",
            "",
        ]
    out += FOUND
    return "\n".join(out)


FOUND = [
    "## Found by this suite while it was built (all fixed unless said)",
    "",
    "- HTTP `POST /v1/` answered a 307 redirect with an empty body; unknown paths and methods answered",
    "  Starlette's plain text. Now `unknown_command` as protocol JSON, 404 (405 for a method).",
    "- `tacocat engine --max-games 10^400` died with an OverflowError (exit 1); the server limits are bounded.",
    "- `tacocat hint --method exact` on an 11-card view ignored `--time` (the enumeration only polled stop);",
    "  an exact enumeration now answers at its time budget.",
    "- (protocol 3.0) A second `tacocat engine --store`/`serve` opened a store another process held when the",
    "  path named it through a symlink to the file or a hard link (the lock was taken by name: `<name>.lock`).",
    "  Now a symlink locks its target's lock file and a store with a second name is refused in one line.",
    "- Seen while building the cross-seat door, fixed since (issue 33, N4): the budget of `new_game`'s",
    "  `engine` seat was not cut to the server's `--max-time-ms`, and the engine moved inside",
    '  `new_game`/`apply` outside the search queue: with `--max-time-ms 100`, `{"engine": {"seat": 0,',
    '  "bot": "pimc", "time_ms": 3000}}` made one `apply` take 6 s. The engine-seat door gives it budgets up',
    "  to the field's maximum (an hour, a billion samples); its replies answer within the cap.",
    "- Not fixed: game and deal counts are not capped (`selfplay --games 10^400` is a run that never ends by",
    "  request), so the CLI door gives --games/--deals/--workers small or invalid values only.",
    "- (issue 33, fair-share door) With every connection place held by one peer's unfinished bodies and",
    "  more of them waiting, each answer to another peer freed that peer's kept-alive connection for a",
    "  waiting one of the flood, and its next request on it was reset (every other request failed). Now a",
    "  peer at its share makes room only from its own idle connections or an over-share peer's",
    "  (solver/protocol/http.py `_make_room`; test_fuzz_doors.py's",
    "  test_a_floods_waiting_connections_leave_the_victims_kept_alive_one_open).",
    "- Seen by the bounded-search door: a process's first duel search imported numpy and scipy.optimize",
    "  at its first matrix game, 1.1-2.9 s measured at load 12, in which neither a stop nor the server's",
    "  cap reaches it (a pimc_static move answered 1.85 s after its cap's stop). Fixed since (f6d230b):",
    "  tacocat serve and tacocat engine import them before their first answer (`warm_search`), and a",
    "  stopped duel takes its best mix without the linear program",
    "  (test_a_processs_first_duel_answers_its_stop_at_once).",
    "- (issue 33, records door) `beats` on an action that is not an answer was dropped whatever it held",
    '  (`{"kind": "replace", "cards": [], "beats": "yes"}` in a record or an apply was accepted), though',
    "  docs/protocol.md says answers only. Fixed since (1d1f054): refused as bad_record; the door's",
    "  mistyped `beats` go on any action. Read as designed, not mutated: cards as plain notation or null;",
    "  a record's players, bot_budget and undos (play --save's, not read by new_game: `\"players\": 5` is",
    "  accepted).",
    "- (issue 33, CLI door) `tacocat hint --player 1 --example` exited 2 with two lines on stderr, the",
    "  example it used (`example: --hand ...`) and then the error (the example's attack is player 1's own,",
    "  R12), where a refusal is one `error:` line. Fixed since (7fa50bc): the example's line follows its checks.",
    "- The engine-seat door's first long run counted 3 leaks that were none: an engine hand discarded",
    "  whole is face up in its replace event (R7). Its check now lets an earlier hand or pile appear as the",
    "  cards of an event of the same answer; the game's current hidden cards never.",
    "",
]


if __name__ == "__main__":
    main()
