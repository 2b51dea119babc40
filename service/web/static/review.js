/* The read-only pages (game page, replay, audits, what-if): what this device's token adds.
 * - Elements marked data-with-token are shown when this device holds the game's token.
 * - A page marked data-refresh-with-token is fetched again with the token (full view: the
 *   cards an open game hides from the public) and its #view swapped in.
 * - "What if…" opens the what-if page for the chosen moment, which asks first (as without
 *   script); its "Start the what-if game" forks the game through POST /games/<id>/fork with
 *   the token, once per tap (the button stays disabled while the new table page opens), keeps
 *   the new game's token on this device and opens its table page.
 * Plain JavaScript, no build step; reads Kibitz.tokens from kibitz.js.
 */
(function () {
  "use strict";
  var K = window.Kibitz;
  var holder = document.querySelector("[data-game-id]");
  if (!holder) { return; }
  var gameId = holder.getAttribute("data-game-id");
  var token = K.tokens.get(gameId);

  function reveal(root) {
    if (!token) { return; }
    var hidden = root.querySelectorAll("[data-with-token]");
    for (var i = 0; i < hidden.length; i++) { hidden[i].hidden = false; }
  }

  function say(box, text) { if (box) { box.textContent = text; } }

  function fork(seq, alertBox) {
    say(alertBox, "");
    return K.api("POST", "/games/" + encodeURIComponent(gameId) + "/fork", {token: token, body: {seq: seq}})
      .then(function (answer) {
        if (answer.status === 201 && answer.body && answer.body.token) {
          K.tokens.set(answer.body.id, answer.body.token);
          window.location.assign("/table/" + encodeURIComponent(answer.body.id));
          return true;
        }
        say(alertBox, (answer.body && answer.body.detail) || ("The what-if game could not be started (" + answer.status + ")."));
        return false;
      }, function () {
        say(alertBox, "The service cannot be reached: try again when the connection is back.");
        return false;
      });
  }

  /* The link follows the chosen moment; it opens the what-if page, which asks before it forks. */
  function wireWhatIf(root) {
    var link = root.querySelector("#what-if");
    var branch = root.querySelector("#branch");
    if (!link || !branch) { return; }
    branch.addEventListener("change", function () {
      link.setAttribute("href", branch.getAttribute("data-fork-base") + "?seq=" + encodeURIComponent(branch.value));
    });
  }

  /* The game page's Export menu: with this device's token, each export is fetched with it (the
   * full view) and saved under the link's file name; without one the plain link (public view). */
  function wireExports(root) {
    var links = root.querySelectorAll("a[data-export]");
    if (!token || !links.length || !window.URL || !URL.createObjectURL) { return; }
    var publicNote = root.querySelector("#export-view");
    if (publicNote) { publicNote.hidden = true; }
    for (var i = 0; i < links.length; i++) {
      links[i].addEventListener("click", function (event) {
        var link = event.currentTarget;
        if (event.ctrlKey || event.metaKey || event.shiftKey) { return; }
        event.preventDefault();
        fetch(link.href, {headers: {"Authorization": "Bearer " + token}, cache: "no-store"})
          .then(function (response) {
            if (!response.ok) { throw new Error(String(response.status)); }
            return response.blob();
          })
          .then(function (blob) {
            var url = URL.createObjectURL(blob);
            var save = document.createElement("a");
            save.href = url;
            save.download = link.getAttribute("download") || "";
            document.body.appendChild(save);
            save.click();
            save.remove();
            setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
          })
          .then(null, function () { window.location.assign(link.href); });  /* offline or refused: the public view */
      });
    }
  }

  function wire(root) { reveal(root); wireWhatIf(root); wireExports(root); }

  /* The what-if page itself. */
  var start = document.getElementById("fork-start");
  if (start) {
    if (!token) {
      start.disabled = true;
      document.getElementById("fork-no-token").hidden = false;
    }
    start.addEventListener("click", function () {
      if (start.disabled) { return; }
      start.disabled = true;  /* one fork per confirmation: enabled again only if none was made */
      fork(parseInt(start.getAttribute("data-seq"), 10), document.getElementById("fork-alert")).then(function (made) {
        if (!made) { start.disabled = false; }
      });
    });
  }

  wire(document);
  var view = document.querySelector("[data-refresh-with-token]");
  if (token && view && window.DOMParser) {
    fetch(window.location.href, {headers: {"Authorization": "Bearer " + token}, cache: "no-store"})
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (!text) { return; }
        var fresh = new DOMParser().parseFromString(text, "text/html").getElementById(view.id);
        if (fresh && fresh.innerHTML !== view.innerHTML) {
          var branch = view.querySelector("#branch");
          var chosen = branch ? branch.value : null;
          view.innerHTML = fresh.innerHTML;
          wire(view);
          branch = view.querySelector("#branch");
          if (branch && chosen !== null) {
            branch.value = chosen;
            branch.dispatchEvent(new Event("change"));
          }
        }
        view.setAttribute("data-view", "full");
      }, function () { /* offline: the public view stays */ });
  }
  window.KibitzReview = {token: token, gameId: gameId, reveal: reveal};
})();
