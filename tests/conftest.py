import json
import os
import resource
import sys
from pathlib import Path

import pytest

# Bytecode caches on for the run and everything it starts: with
# PYTHONDONTWRITEBYTECODE set (as some images set it), each xdist worker
# rewrites every test module again and each `tacocat serve`/`engine` a test
# starts compiles the package again (about 10 of the default loop's ~70 CPU
# seconds).  The caches go to __pycache__, which git ignores.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# The conformance vectors sit beside the checkout, read-only (DEVELOPERS.md).
CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


def load_cases(name: str) -> list[dict]:
    path = CONFORMANCE / f"{name}.json"
    if not path.exists():
        pytest.fail(f"conformance vectors missing: {path} (../shared/conformance must sit beside the checkout)")
    return json.loads(path.read_text())["cases"]


# Tests moved to the slow set by measurement: each took >= 1.5 s in one
# process at load average 3-9 on the 2-core machine (about 0.7 s or more
# idle; the seconds are the loaded ones).  The default loop has to stay
# under 30 s idle, and each of these has a cheaper test of the same thing
# left in it or is a whole-game, browser, process or brute-force check that
# CI's run (everything, `-n 2`) still makes.  A file's owner may move its
# line into the file as `@pytest.mark.slow`; re-measure with
# `python -m pytest -q -m "not slow" --durations=60 -n 0 -p no:randomly`.
SLOW_BY_MEASUREMENT = """
 18.4  test_bot_budgets.py::test_every_bot_legal_at_every_budget
  1.6  test_bot_budgets.py::test_every_budget_at_each_kind[duel]
  3.1  test_cli_analyze.py::test_analysis_api_is_repeatable
  2.0  test_cli_analyze.py::test_analyze_a_played_game
  3.5  test_cli_analyze.py::test_analyze_json
  2.8  test_cli_analyze.py::test_equity_curve_and_points_scale
  5.8  test_cli_analyze.py::test_plot_writes_a_png
  4.5  test_cli_analyze.py::test_summary_line_matches_the_json
  1.5  test_cli_arena.py::test_repeatable
  5.9  test_cli_messages.py::test_a_refused_equilibrium_says_what_works_instead
  3.0  test_cli_play.py::test_end_of_input_saves_and_resume_continues
  2.5  test_cli_play.py::test_hint_at_the_prompt
  2.6  test_cli_play.py::test_play_through_the_installed_entry_point
  1.6  test_cli_play.py::test_scripted_game_finishes_and_saves_a_replayable_record
  8.8  test_cli_selfplay.py::test_selfplay_counts_results
  2.0  test_client.py::test_a_bot_move_reports_while_it_thinks[jsonlines]
 10.8  test_client.py::test_a_few_whole_games_through_each_transport[http]
  4.1  test_client.py::test_a_few_whole_games_through_each_transport[jsonlines]
  4.8  test_client.py::test_http_searches_queue_then_answer_busy
 10.0  test_client.py::test_info_streams_during_a_two_second_search_and_stop_ends_it[http]
  2.3  test_client.py::test_info_streams_during_a_two_second_search_and_stop_ends_it[jsonlines]
 17.1  test_client.py::test_the_readme_client_example_runs_as_written
  3.4  test_cluster.py::test_an_address_where_no_cluster_listens_is_one_line
  9.9  test_cluster.py::test_arena_table_shows_elo_and_the_sprt_verdict
 10.0  test_cluster.py::test_killed_worker_mid_match_still_gives_every_deal_once
  7.8  test_cluster.py::test_run_tasks_every_item_once_any_batch_and_worker_count
 17.5  test_cluster.py::test_sprt_accepts_the_null_between_identical_bots
  2.8  test_documents.py::test_one_mutant_of_every_class_is_refused_cleanly[endgame view]
  4.0  test_documents.py::test_one_mutant_of_every_class_is_refused_cleanly[short view]
  3.1  test_documents.py::test_one_mutant_of_every_class_is_refused_cleanly[state]
  6.0  test_documents.py::test_one_mutant_of_every_class_is_refused_cleanly[view]
  1.6  test_documents.py::test_view_board_cat_off_the_board_or_not_an_integer[short-True]
  4.4  test_session_robustness.py::test_engine_store_survives_sigkill
  4.3  test_session_robustness.py::test_every_state_and_view_of_real_games_reads_back[rules0]
 15.4  test_session_robustness.py::test_every_state_and_view_of_real_games_reads_back[rules1]
  4.5  test_session_robustness.py::test_every_state_and_view_of_real_games_reads_back[rules3]
  2.5  test_session_robustness.py::test_serve_on_a_busy_port_is_one_line_exit_2
  2.0  test_drawn_games.py::test_a_match_counts_wins_and_draws_side_by_side
  1.6  test_drawn_games.py::test_selfplay_counts_drawn_games
  2.2  test_drawn_games.py::test_the_client_reads_a_drawn_game_over_json_lines
  4.6  test_drawn_games.py::test_the_worker_processes_score_drawn_games_the_same
  4.4  test_engine_cli.py::test_bad_ruleset_file_is_one_line_on_stderr
  2.5  test_engine_cli.py::test_end_of_input_answers_then_exits
  6.0  test_engine_cli.py::test_hint_answers_like_tacocat_hint_json
  2.9  test_engine_cli.py::test_stop_ends_a_long_hint_early
  7.4  test_engine_cli.py::test_whole_game_with_bots_over_json_lines
  5.2  test_equilibrium.py::test_best_response_is_exact_against_a_brute_force
 15.1  test_equilibrium.py::test_value_equals_the_sequence_form_lp_on_50_tiny_endgames
  3.1  test_equilibrium_bounds.py::test_the_size_estimate_is_close_and_a_tree_over_the_cap_is_refused_before_it_is_built
  5.5  test_fuzz_doors.py::test_a_second_process_on_a_held_store_is_refused_in_one_line
  4.2  test_fuzz_doors.py::test_client_b_neither_stops_nor_reads_client_a
  1.9  test_fuzz_doors.py::test_cross_seat_tokens_open_nothing_in_process
  1.8  test_fuzz_doors.py::test_cross_seat_tokens_open_nothing_over_http
  2.0  test_fuzz_doors.py::test_files
  5.0  test_fuzz_doors.py::test_http_bodies
  9.2  test_fuzz_doors.py::test_protocol_requests
  3.9  test_fuzz_doors.py::test_the_browser_door_notices_a_planted_bug
  3.8  test_fuzz_doors.py::test_what_a_web_page_could_send_is_refused
  2.2  test_game.py::test_a_view_never_shows_the_hidden_cards
  8.0  test_game.py::test_every_round_ends_with_one_card_each
  4.6  test_game.py::test_invariants_hold_under_random_legal_play
  3.8  test_game.py::test_record_replays_to_the_same_final_state
  2.5  test_game.py::test_state_and_view_json_round_trip
 10.3  test_history.py::test_answer_floor_is_exactly_replay_legality
 26.3  test_history.py::test_conformance_worlds_by_floor_and_by_replay
  8.2  test_history_search.py::test_duel_sees_only_worlds_of_the_unseen_pool_and_its_size
  9.4  test_history_search.py::test_exact_enumeration_equals_brute_force_over_card_subsets_filtered_by_replay
  2.1  test_history_search.py::test_history_hints_through_the_cli
  2.5  test_history_search.py::test_history_hints_through_the_protocol
  1.6  test_history_search.py::test_history_hints_through_the_python_api[case6]
  1.6  test_history_search.py::test_ismcts_deals_only_consistent_worlds
  1.7  test_history_search.py::test_pimc_and_exact_solve_only_consistent_worlds[exact]
  4.3  test_http.py::test_a_gone_client_frees_its_search
  2.0  test_http.py::test_concurrent_requests_are_served_during_searches
  6.9  test_http.py::test_whole_game_over_http
  4.0  test_http_safety.py::test_a_new_client_is_served_while_300_idle_sockets_are_open
  1.9  test_http_safety.py::test_bad_ids_answer_a_status_that_agrees_with_the_body
  3.3  test_http_safety.py::test_idle_connections_are_closed_after_the_timeout
  5.4  test_http_safety.py::test_the_python_client_reconnects_after_an_idle_close
  6.4  test_inference.py::test_policy_likelihood_matches_a_brute_force_over_drawn_cards
 14.8  test_inference.py::test_weighted_enumeration_is_a_distribution_and_moves_weight
  1.9  test_isolation.py::test_a_game_against_the_engine_gives_the_page_only_its_own_seat[3]
  2.6  test_isolation.py::test_the_servers_admin_token_stops_every_clients_search
  2.7  test_notation.py::test_every_legal_action_prints_what_parses_back
  3.1  test_openspiel.py::test_convert_to_turn_based_accepts_the_simultaneous_game
  1.7  test_openspiel.py::test_every_bot_plays_in_openspiels_loop[pimc_eq]
  2.1  test_openspiel.py::test_information_state_strings_are_exactly_the_information_sets[2]
  8.0  test_openspiel.py::test_openspiel_exploitability_of_our_equilibrium_profile_agrees
 19.7  test_openspiel.py::test_openspiel_ismcts_plays_a_whole_game_against_pimc
  3.1  test_openspiel.py::test_openspiel_random_simulation[tacocat-params3]
  3.2  test_openspiel.py::test_openspiel_random_simulation[tacocat-params4]
  6.3  test_openspiel.py::test_openspiel_random_simulation[tacocat_turn-params5]
  5.3  test_openspiel.py::test_play_differential_against_game_state
  9.9  test_openspiel.py::test_resample_draws_the_r20_weights
  5.0  test_openspiel.py::test_resample_never_depends_on_the_hidden_hand[tacocat-params2]
  3.6  test_openspiel.py::test_resample_never_depends_on_the_hidden_hand[tacocat_turn-params1]
  4.9  test_openspiel.py::test_whole_game_differential_against_game_state
  1.7  test_protocol_live.py::test_apply_and_move_events_over_whole_games
  1.7  test_solve_endgame.py::test_exact_odds_equal_brute_force[3 3 7-12--3-0-0]
  1.5  test_solve_endgame.py::test_exact_odds_equal_brute_force[4 6 11-2 2 9--3-1-1]
  1.9  test_solver.py::test_answer_generation_equals_reference_on_random_hands[300]
  3.7  test_solver.py::test_tiny_tt_forces_replacement_and_stays_exact
  4.8  test_store.py::test_a_second_serve_or_engine_on_the_same_store_is_refused_in_one_line
  5.2  test_store.py::test_two_serves_on_the_default_store_the_original_report
  2.8  test_tally.py::test_the_core_lists_the_same_hands_in_the_same_order_as_the_plain_enumeration
  2.3  test_web_board.py::test_serve_logs_no_request_with_no_access_log
  2.0  test_web_board.py::test_serve_prints_the_url_logs_each_request_and_has_a_favicon
  1.8  test_web_board.py::test_the_api_docs_page_renders_the_openapi_description
  9.6  test_web_board_private.py::test_a_short_game_against_the_engine_shows_nothing_of_its_hand
"""
# The second cut, by CPU seconds (TACOCAT_CPU_REPORT=1 below, `-n 2`, load
# 11-14): the default loop's tail after the first cut, each with a cheaper
# test of the same thing left in the loop.
SLOW_BY_CPU = """
 2.24  test_equilibrium_bounds.py::test_a_time_budget_ends_the_iterations_with_room_for_the_answer
 1.16  test_documents.py::test_one_mutant_of_every_class_is_refused_cleanly[short view]
 0.79  test_documents.py::test_one_mutant_of_every_class_is_refused_cleanly[endgame view]
 0.57  test_documents.py::test_one_mutant_of_every_class_is_refused_cleanly[record]
 0.69  test_openspiel.py::test_unseeded_draws_are_the_chance_outcomes_and_cards_are_conserved
 0.68  test_solve_endgame.py::test_exact_odds_equal_brute_force[4 6 11-2 2 9--3-1-1]
 0.64  test_solve_endgame.py::test_exact_odds_equal_brute_force[3 3 7-12--3-0-0]
 0.58  test_pimc_classic.py::test_pimc_classic_plays_the_recorded_games[level5-11]
 0.40  test_pimc_classic.py::test_pimc_classic_plays_the_recorded_games[level5-10]
 0.51  test_match.py::test_workers_do_not_change_the_numbers
 0.51  test_bot_budgets.py::test_every_budget_at_each_kind[replace]
 0.48  test_history_search.py::test_pimc_and_exact_solve_only_consistent_worlds[pimc]
 0.46  test_fuzz_doors.py::test_the_cross_client_door_notices_a_planted_bug[_stop_ends_everyones]
 0.43  test_fuzz_doors.py::test_the_cross_client_door_notices_a_planted_bug[_set_rules_shared]
 0.43  test_fuzz_doors.py::test_the_cross_client_door_notices_a_planted_bug[_busy_names_everyones]
 0.45  test_openspiel.py::test_load_game_in_a_fresh_interpreter
 0.44  test_drawn_games.py::test_the_analyze_command_says_drawn
"""
# The third cut (TACOCAT_CPU_REPORT=1, `-n 2`, idle, 2026-12-02): the loop
# was 36 s idle against its 30 s; the costliest tests left, by CPU seconds.
# Each is a whole path through a door or a search that CI makes; the loop
# keeps a sibling case (the other transport or search) or a cheaper check of
# the same thing for the twin games, the searches and the 12-card hints.
# The 3-card leaf checks of test_cfr_leaves.py (16 CPU s) joined it later:
# the 2-card cases stay in the loop and fail on the same planted bug.
SLOW_THIRD_CUT = """
 2.93  test_twin_games.py::test_a_seat_cannot_tell_twin_games_apart[http]
 2.44  test_client.py::test_typed_results_and_errors[jsonlines]
 1.32  test_client.py::test_typed_results_and_errors[http]
 0.96  test_budget.py::test_a_bot_plays_what_hint_ranks_first_at_the_same_budget[pimc]
 0.60  test_round_search.py::test_the_reply_the_search_decides_against_is_not_the_inference_models_noise
 0.56  test_session_robustness.py::test_a_12_card_replacement_hint_honours_the_cap_and_stop[time cap]
 0.30  test_equilibrium_bounds.py::test_a_time_budget_ends_the_estimate_or_the_build[300]
 0.82  test_exploitability_harness.py::test_every_decision_of_the_real_endgame_is_a_view_the_harness_asks[2-12]
 0.67  test_session_robustness.py::test_a_12_card_duel_and_play_hint_answer_at_stop
 0.65  test_fuzz_doors.py::test_command_lines
 0.60  test_protocol_live.py::test_json_lines_transcript_of_the_new_messages
 0.59  test_tally.py::test_pimc_play_equals_the_plain_average_of_the_same_sampled_worlds[5]
 0.58  test_play_pty.py::test_colour_on_a_terminal_and_not_with_no_color
 6.73  test_cfr_leaves.py::test_leaves_played_in_place_value_a_random_profile_as_the_whole_tree_does[3-2]
 5.28  test_cfr_leaves.py::test_leaves_played_in_place_value_a_random_profile_as_the_whole_tree_does[3-4]
 4.05  test_cfr_leaves.py::test_leaves_played_in_place_value_a_random_profile_as_the_whole_tree_does[3-0]
"""
SLOW_IDS = frozenset(
    line.split(None, 1)[1]
    for table in (SLOW_BY_MEASUREMENT, SLOW_BY_CPU, SLOW_THIRD_CUT)
    for line in table.strip().splitlines()
)


@pytest.hookimpl(tryfirst=True)  # before -m/-k deselect: every collected item is seen
def pytest_collection_modifyitems(config, items):
    collected: dict[str, list[str]] = {}
    for item in items:
        nodeid = item.nodeid.removeprefix("tests/")
        collected.setdefault(nodeid.split("[", 1)[0], []).append(nodeid)
        if nodeid in SLOW_IDS:
            item.add_marker(pytest.mark.slow)
    # A line whose test function was collected but none of whose cases
    # matched marks nothing (a renamed parameter): its replacement would run
    # in the default loop unnoticed.  tests/test_slow_list.py checks that the
    # functions themselves exist.
    stale = [(node, collected.get(node.split("[", 1)[0], [])) for node in sorted(SLOW_IDS)]
    stale = [(node, cases) for node, cases in stale if cases and node not in cases]
    if stale:
        lines = "; ".join(
            f"{node} (its cases: {', '.join(c.partition('[')[2].rstrip(']') or '-' for c in cases)})"
            for node, cases in stale
        )
        raise pytest.UsageError(f"tests/conftest.py slow list: {len(stale)} line(s) mark nothing: {lines}")


# TACOCAT_CPU_REPORT=1 lists the tests by the CPU they used, setup, call and
# teardown: this process, the children it waited for, and the live processes
# below it (a server a module's fixture started does a test's searches).
# Unlike --durations, the numbers hardly move with the machine's load, so
# they are what the slow list is cut by.
CPU_REPORT = os.environ.get("TACOCAT_CPU_REPORT", "") not in ("", "0")


def _processes_below() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds so far) of every live process below
    this one (Linux's /proc; empty elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    table: dict[int, tuple[int, float]] = {}
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return {}
    for name in entries:
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        table[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    own, below = os.getpid(), {}
    for pid in table:
        parent, hops = table[pid][0], 0
        while parent not in (own, 0, 1) and parent in table and hops < 64:
            parent, hops = table[parent][0], hops + 1
        if parent == own and pid != own:
            below[pid] = table[pid]
    return below


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cpu_since(start: tuple[float, dict[int, tuple[int, float]]]) -> float:
    waited = _cpu_seconds() - start[0]
    before, now = start[1], _processes_below()
    live = sum(cpu - (before[pid][1] if pid in before else 0.0) for pid, (_, cpu) in now.items())
    # A child alive at the start and waited for since counts whole in
    # RUSAGE_CHILDREN: take off what it had used before the test.
    reaped = sum(cpu for pid, (parent, cpu) in before.items() if pid not in now and parent == os.getpid())
    return waited + live - reaped


def pytest_runtest_setup(item):
    if CPU_REPORT:
        below = _processes_below()  # before the clock: the scan's own CPU is not the test's
        item._tacocat_cpu_start = (_cpu_seconds(), below)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if CPU_REPORT and call.when == "teardown" and hasattr(item, "_tacocat_cpu_start"):
        outcome.get_result().user_properties.append(("cpu_s", _cpu_since(item._tacocat_cpu_start)))


def pytest_terminal_summary(terminalreporter):
    if not CPU_REPORT:
        return
    rows = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            for key, value in getattr(report, "user_properties", ()):
                if key == "cpu_s":
                    rows.append((value, report.nodeid))
    rows.sort(reverse=True)
    total = sum(v for v, _ in rows)
    terminalreporter.write_line(f"CPU seconds (setup, call and teardown) of {len(rows)} tests: {total:.1f}")
    # Every test, so that each file's owner finds the cost of their own.
    for value, nodeid in rows:
        terminalreporter.write_line(f"{value:7.2f}  {nodeid}")
