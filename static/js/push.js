// "Send push reminders to this browser": register the service worker, subscribe
// with the site's VAPID public key, and give the subscription to the site.
(function () {
  "use strict";
  var button = document.getElementById("push-on");
  if (!button) return;
  var status = document.getElementById("push-status");
  function key(b64) {
    var pad = "=".repeat((4 - (b64.length % 4)) % 4);
    var raw = atob((b64 + pad).replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, function (c) { return c.charCodeAt(0); });
  }
  function csrf() {
    var m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return m ? decodeURIComponent(m[1]) : field ? field.value : "";
  }
  button.addEventListener("click", function () {
    if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
      status.textContent = button.dataset.failed + " no Push API";
      return;
    }
    navigator.serviceWorker.register("/sw.js", { scope: "/" })
      .then(function (reg) { return navigator.serviceWorker.ready.then(function () { return reg; }); })
      .then(function (reg) {
        return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(button.dataset.key) });
      })
      .then(function (sub) {
        return fetch(button.dataset.url, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
          body: JSON.stringify(sub.toJSON()),
          credentials: "same-origin",
        });
      })
      .then(function (r) {
        if (!r.ok) return r.json().then(function (b) { throw new Error(b.message); });
        status.textContent = button.dataset.done;
      })
      .catch(function (e) { status.textContent = button.dataset.failed + " " + e.message; });
  });
})();
