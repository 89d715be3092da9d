"""End to end in a real headless Chromium: a person's full game played by clicking.

Skipped (saying so) only where no Chromium is installed; see tests/browser.py.
"""

import json

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from agents import HEURISTICS  # noqa: E402
from envs import GAMES  # noqa: E402
from tests.browser import chromium, chromium_or_skip, live_server, save_screenshot  # noqa: E402
from training.web import GameServer, create_app  # noqa: E402

pytestmark = pytest.mark.browser

#: seeds of short games (one quick game each); other games use seed 1
SEEDS = {"prowl": 3, "badland_wolves": 4, "clans": 2}
#: game keywords that keep a clicked game short (a Clandestine game runs to about 700 decisions
#: per seat; a 2-round limit ends it by the round limit, scored as usual)
CONFIGS = {"clandestine": {"max_rounds": 2}}
#: (game, opponents, seed) for every registered game
GAMES_TO_PLAY = [(g, ["heuristic" if g in HEURISTICS else "random"] * (2 if g == "badland_wolves"
                                                                       else 1), SEEDS.get(g, 1))
                 for g in GAMES if g != "toy"]


def check_board_click_filters_moves(driver, legal):
    """Clicking a Clans area on the board leaves only the moves from that area visible."""
    name = legal[min(legal)]
    assert name.startswith("move area ")
    area = name.split()[2]
    driver.execute_script(
        "document.querySelector('#board polygon[data-area=\"' + arguments[0] + '\"]')"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}));", area)
    visible = driver.execute_script(
        "return [...document.querySelectorAll('#actions button.action')]"
        ".filter(b => b.style.display !== 'none').map(b => b.textContent);")
    expected = [n for a, n in sorted(legal.items()) if n.startswith(f"move area {area} (")]
    assert visible == expected and 0 < len(expected) < len(legal)
    driver.execute_script("const f = document.getElementById('filter'); f.value = '';"
                          "f.dispatchEvent(new Event('input'));")


@pytest.mark.parametrize("game,opponents,seed", GAMES_TO_PLAY)
def test_full_game_by_clicking(game, opponents, seed, tmp_path):
    chromium_or_skip()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    server = GameServer(game, 0, opponents, config=CONFIGS.get(game), seed=seed)
    rng = np.random.default_rng(seed)
    with live_server(create_app(server)) as url, chromium(tmp_path) as driver:
        driver.get(f"{url}/?delay=0&seed={seed}")
        wait = WebDriverWait(driver, 30)
        clicks = 0
        shot = False
        while True:
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#actions button.action")
                       or d.find_element(By.TAG_NAME, "body").get_attribute("data-over")
                       == "true")
            body = driver.find_element(By.TAG_NAME, "body")
            if body.get_attribute("data-over") == "true":
                break
            step = body.get_attribute("data-step")
            buttons = driver.find_elements(By.CSS_SELECTOR, "#actions button.action")
            # every button is a legal action of the server's game, named as the engine names it
            (session,) = server.sessions.values()
            legal = {a: session.state.action_to_string(a) for a in session.state.legal_actions()}
            shown = driver.execute_script(
                "return [...document.querySelectorAll('#actions button.action')]"
                ".map(b => [Number(b.dataset.id), b.textContent]);")
            assert dict(map(tuple, shown)) == legal and len(shown) == len(buttons)
            if clicks == 3 and not shot:
                if game == "clans":
                    check_board_click_filters_moves(driver, legal)
                driver.execute_script("window.scrollTo(0, 0)")
                save_screenshot(driver, f"web_{game}.png", tmp_path)
                shot = True
            buttons[int(rng.integers(len(buttons)))].click()
            clicks += 1
            wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-step")
                       != step)
            assert clicks < 400, "the game did not end"
        # the final screen: returns per seat, the reveal, no choices left
        final = driver.find_element(By.ID, "final")
        assert final.is_displayed()
        (session,) = server.sessions.values()
        state = session.state
        assert state.is_over and clicks >= 1
        shown = [float(td.text) for td in driver.find_elements(By.CSS_SELECTOR,
                                                               "#returns-table td.ret")]
        assert shown == pytest.approx([float(x) for x in state.returns()], abs=0.005)
        assert json.loads(driver.find_element(By.ID, "truth").get_attribute("data-json")) == \
            json.loads(json.dumps(state.hidden_truth()))
        assert "Game over" in driver.find_element(By.ID, "status").text
        assert driver.find_elements(By.CSS_SELECTOR, "#actions button.action") == []
        assert driver.find_element(By.ID, "error").text == ""
        save_screenshot(driver, f"web_{game}_final.png", tmp_path, docs=False)
