// ponderosa status page: live updates over Server-Sent Events and ticking
// clocks. The page is complete without this script; it only keeps it fresh.
"use strict";
(function () {
  var live = document.getElementById("live");
  // Clocks count down from the instant the snapshot was rendered (its
  // data-at, server time); skew maps server time to this browser's clock.
  function renderedAt() {
    var h = live.querySelector("[data-at]");
    return h ? Number(h.getAttribute("data-at")) : Date.now();
  }
  var skew = Date.now() - renderedAt();
  var base = Date.now();
  function fmt(ms) {
    if (ms < 0) ms = 0;
    if (ms < 10000) {
      var t = Math.floor(ms / 100);
      return "0:0" + Math.floor(t / 10) + "." + (t % 10);
    }
    var s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
    var ss = ("0" + (s % 60)).slice(-2);
    return h > 0 ? h + ":" + ("0" + m).slice(-2) + ":" + ss : Math.floor(s / 60) + ":" + ss;
  }
  function tick() {
    var clocks = live.querySelectorAll(".clock[data-run]");
    for (var i = 0; i < clocks.length; i++) {
      var c = clocks[i];
      c.textContent = fmt(Number(c.getAttribute("data-ms")) - (Date.now() - base));
    }
  }
  setInterval(tick, 100);
  if (!window.EventSource) return;
  var es = new EventSource("events");
  es.addEventListener("update", function (e) {
    live.innerHTML = e.data;
    base = Math.min(Date.now(), renderedAt() + skew);
    document.documentElement.removeAttribute("data-offline");
  });
  es.onerror = function () { document.documentElement.setAttribute("data-offline", ""); };
})();
