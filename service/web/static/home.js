/* Home: mark the games this device can record (it holds their token), and download a night's
 * games: with the tokens this device keeps, through POST /games/export (the games recorded here
 * in full, so that each imports back even mid-hand); without any, the form's plain GET. */
(function () {
  "use strict";
  var K = window.Kibitz;
  var items = document.querySelectorAll("li[data-game-id]");
  for (var i = 0; i < items.length; i++) {
    if (K.tokens.get(items[i].getAttribute("data-game-id"))) {
      items[i].classList.add("mine");
      items[i].querySelector(".recordable").hidden = false;
    }
  }

  var form = document.getElementById("export-form");
  if (!form || !window.URL || !URL.createObjectURL) { return; }
  var alertBox = document.getElementById("export-alert");
  form.addEventListener("submit", function (event) {
    var tokens = K.tokens.all();
    if (!tokens.length) { return; }  /* nothing to add: the plain download */
    event.preventDefault();
    alertBox.textContent = "";
    var body = {since: form.elements.since.value || null, until: form.elements.until.value || null, tokens: tokens};
    fetch(form.getAttribute("action"), {method: "POST", cache: "no-store",
                                        headers: {"Content-Type": "application/json", "Accept": "application/zip"},
                                        body: JSON.stringify(body)})
      .then(function (response) {
        if (response.ok) {
          var named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
          return response.blob().then(function (blob) {
            var url = URL.createObjectURL(blob);
            var save = document.createElement("a");
            save.href = url;
            save.download = named ? named[1] : "kibitz-games.zip";
            document.body.appendChild(save);
            save.click();
            save.remove();
            setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
          });
        }
        return response.json().then(function (problem) {
          var words = [problem.detail || "The games could not be downloaded."];
          for (var field in problem.errors || {}) {
            if (Object.prototype.hasOwnProperty.call(problem.errors, field)) { words.push([].concat(problem.errors[field]).join(" ")); }
          }
          alertBox.textContent = words.join(" ");
        }, function () { alertBox.textContent = "The games could not be downloaded (the service answered " + response.status + ")."; });
      }, function () {
        alertBox.textContent = "The service cannot be reached: try again when the connection is back.";
      });
  });
})();
