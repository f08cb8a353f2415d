"""Assist: work a search's worker hands back to the thread waiting for it."""

from __future__ import annotations

import threading

from memdir.search.threads import Assist


def test_join_returns_once_closed_even_with_nothing_offered() -> None:
    assist = Assist()
    closer = threading.Timer(0.05, assist.close)
    closer.start()
    assist.join()  # would hang if close() did not wake it
    closer.join()


def test_the_joining_thread_runs_offered_work_until_close() -> None:
    assist = Assist()
    ran: list[str] = []
    done = threading.Event()

    def job() -> None:
        ran.append(threading.current_thread().name)
        assist.withdraw(job)  # nothing left: a later join finds no work
        done.set()

    joiner = threading.Thread(target=assist.join, name="joiner")
    joiner.start()
    assist.offer(job)
    assert done.wait(5)
    assert joiner.is_alive()  # still waiting for more work or close
    assist.close()
    joiner.join(5)
    assert not joiner.is_alive()
    assert ran == ["joiner"]


def test_work_offered_after_close_is_not_run() -> None:
    assist = Assist()
    assist.close()
    ran: list[int] = []
    assist.offer(lambda: ran.append(1))
    assist.join()
    assert ran == []
