/* Replay: Previous step / Next step, the Step slider, the ← → keys and the list of steps
 * fetch the board as it was after that event (/watch/<id>/replay/board?step=n, with this
 * device's token when it has one: the full view) and swap it in without reloading. */
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root || !window.fetch) { return; }
  var token = window.KibitzReview && window.KibitzReview.token;
  var boardUrl = root.getAttribute("data-board-url");
  var stepsUrl = root.getAttribute("data-steps-url");
  var last = parseInt(root.getAttribute("data-version"), 10);
  var step = parseInt(root.getAttribute("data-step"), 10);
  var board = document.getElementById("replay-board");
  var range = document.getElementById("step-range");
  var out = document.getElementById("step-out");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var cache = {};
  var wanted = step;

  function headers() { return token ? {"Authorization": "Bearer " + token} : {}; }

  function fetchBoard(n) {
    if (!cache[n]) {
      cache[n] = fetch(boardUrl + "?step=" + n, {headers: headers(), cache: "no-store"}).then(function (r) {
        if (!r.ok) { delete cache[n]; throw new Error("status " + r.status); }
        return r.text();
      }, function (error) { delete cache[n]; throw error; });
    }
    return cache[n];
  }

  function mark(n) {
    range.value = String(n);
    range.setAttribute("aria-valuetext", "Step " + n + " of " + last);
    out.textContent = n + " of " + last;
    prev.disabled = n <= 1;
    next.disabled = n >= last;
    prev.value = String(n - 1);
    next.value = String(n + 1);
    var links = document.querySelectorAll("#steps-list a[data-step]");
    for (var i = 0; i < links.length; i++) {
      if (parseInt(links[i].getAttribute("data-step"), 10) === n) { links[i].setAttribute("aria-current", "step"); }
      else { links[i].removeAttribute("aria-current"); }
    }
  }

  function go(n) {
    n = Math.max(1, Math.min(last, n));
    wanted = n;
    mark(n);
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", window.location.pathname + "?step=" + n);
    }
    return fetchBoard(n).then(function (html) {
      if (wanted !== n) { return; }
      step = n;
      board.innerHTML = html;
      board.setAttribute("data-step", String(n));
      var title = board.querySelector(".step-title");
      if (title) { document.getElementById("step-announce").textContent = title.textContent; }
      if (n < last) { fetchBoard(n + 1).catch(function () {}); }
    }, function () {
      if (wanted === n) { board.insertAdjacentHTML("afterbegin", '<p class="notice">This step cannot be loaded now; try again.</p>'); }
    });
  }

  prev.addEventListener("click", function (e) { e.preventDefault(); go(wanted - 1); });
  next.addEventListener("click", function (e) { e.preventDefault(); go(wanted + 1); });
  range.addEventListener("input", function () { go(parseInt(range.value, 10)); });
  document.getElementById("stepper").addEventListener("submit", function (e) { e.preventDefault(); go(parseInt(range.value, 10)); });
  document.addEventListener("keydown", function (e) {
    if (e.target === range || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea") { return; }
    if (e.key === "ArrowLeft") { e.preventDefault(); go(wanted - 1); }
    if (e.key === "ArrowRight") { e.preventDefault(); go(wanted + 1); }
  });
  document.getElementById("replay-steps").addEventListener("click", function (e) {
    var link = e.target.closest ? e.target.closest("a[data-step]") : null;
    if (!link || e.ctrlKey || e.metaKey || e.shiftKey) { return; }
    e.preventDefault();
    go(parseInt(link.getAttribute("data-step"), 10));
    window.scrollTo({top: 0});
  });

  if (token) {
    /* The scorekeeper's device sees everything: fetch this step and the list with the token. */
    document.getElementById("view-note").textContent = "full view (this device keeps the scorekeeper's token)";
    fetch(stepsUrl + "?step=" + step, {headers: headers(), cache: "no-store"}).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (html) { document.getElementById("replay-steps").innerHTML = html; mark(wanted); }
    }, function () {});
    go(step);
  } else if (step < last) {
    fetchBoard(step + 1).catch(function () {});
  }
})();
