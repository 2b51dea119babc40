/* Home: mark the games this device can record (it holds their token). */
(function () {
  "use strict";
  var items = document.querySelectorAll("li[data-game-id]");
  for (var i = 0; i < items.length; i++) {
    if (window.Kibitz.tokens.get(items[i].getAttribute("data-game-id"))) {
      items[i].classList.add("mine");
      items[i].querySelector(".recordable").hidden = false;
    }
  }
})();
