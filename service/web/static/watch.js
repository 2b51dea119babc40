/* The game page follows the game live: every second it asks /watch/<id>/board whether the
 * game moved on (If-None-Match with the version shown; 304 while nothing changed) and swaps
 * the new board in. Plain HTTP polling survives flaky Wi-Fi: a failed poll is retried with
 * a growing pause and the page says it is reconnecting. Polls pause while the tab is hidden. */
(function () {
  "use strict";
  var root = document.getElementById("watch");
  if (!root || !window.fetch) { return; }
  var url = root.getAttribute("data-board-url");
  var every = parseInt(root.getAttribute("data-poll-ms"), 10) || 1000;
  var board = document.getElementById("live-board");
  var note = document.getElementById("live-note");
  var announce = document.getElementById("live-announce");
  var version = root.getAttribute("data-version");
  var noted = note.textContent;  // what the page says while it follows the game (the server's words)
  var failures = 0;
  var timer = null;

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  function poll() {
    if (document.hidden) { return; }
    fetch(url, {headers: {"If-None-Match": '"' + version + '"'}, cache: "no-store"})
      .then(function (response) {
        if (response.status === 304) { return null; }
        if (!response.ok) { throw new Error("status " + response.status); }
        var etag = (response.headers.get("ETag") || "").replace(/"/g, "");
        return response.text().then(function (html) { return {html: html, version: etag}; });
      })
      .then(function (fresh) {
        if (failures) { note.textContent = noted; }
        failures = 0;
        if (fresh && fresh.version !== version) {
          version = fresh.version;
          root.setAttribute("data-version", version);
          board.innerHTML = fresh.html;
          var headline = document.getElementById("headline");
          if (headline) { announce.textContent = headline.textContent; }
          if (window.KibitzReview) { window.KibitzReview.reveal(board); }
        }
        schedule(every);
      }, function () {
        failures += 1;
        note.textContent = "Reconnecting… (the board below may be out of date)";
        schedule(Math.min(every * Math.pow(2, failures), 15000));
      });
  }

  document.addEventListener("visibilitychange", function () { if (!document.hidden) { schedule(0); } });
  schedule(every);
})();
