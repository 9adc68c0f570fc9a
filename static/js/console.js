// Seeding by drag order: the entrants' lines become a list to drag; the
// textarea (what the form submits) follows the list's order.
(function () {
  "use strict";
  document.querySelectorAll("textarea.console-seeds").forEach(function (area) {
    var list = area.form.querySelector(".console-order");
    if (!list) return;
    var dragged = null;
    function sync() {
      area.value = Array.prototype.map.call(list.children, function (li) {
        return li.textContent;
      }).join("\n");
    }
    function build() {
      list.textContent = "";
      area.value.split("\n").filter(function (l) { return l.trim(); }).forEach(function (line) {
        var li = document.createElement("li");
        li.textContent = line;
        li.draggable = true;
        li.addEventListener("dragstart", function () { dragged = li; });
        li.addEventListener("dragover", function (e) { e.preventDefault(); });
        li.addEventListener("drop", function (e) {
          e.preventDefault();
          if (dragged && dragged !== li) {
            list.insertBefore(dragged, li);
            sync();
          }
        });
        list.appendChild(li);
      });
      list.hidden = !list.children.length;
    }
    area.addEventListener("input", build);
    build();
  });
})();
