/* The table page: records a live game through the documented API (see README, "Pages"). */
(function () {
  "use strict";
  var K = window.Kibitz;
  var root = document.getElementById("table");
  var gameId = root.getAttribute("data-game-id");
  var token = K.tokens.adoptFromFragment(gameId) || K.tokens.get(gameId);
  var turn = document.getElementById("turn");

  function load() {
    return K.api("GET", "/games/" + encodeURIComponent(gameId), {token: token}).then(function (answer) {
      if (answer.status !== 200) { turn.textContent = (answer.body && answer.body.detail) || "Cannot load the game."; return; }
      var state = answer.body.state;
      turn.textContent = state.to_act.length ? state.to_act.join(", ") + " to act" : state.phase;
    });
  }
  if (!token) { document.getElementById("no-token").hidden = false; }
  load();
})();
