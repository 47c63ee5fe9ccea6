/// The console's one script, built into the binary and served like the stylesheet. Every page
/// works without it; it only adds: each table's headers become buttons that sort its rows by that
/// column (once ascending, again descending; `aria-sort` says which). Tables whose order means
/// something (a placement's audiences, read top to bottom) carry class `ordered` and are left be.
enum ConsoleScript {
    static let asset = ConsoleAsset(text: source, extension: "js", contentType: "text/javascript; charset=utf-8")

    static let source = #"""
// abctl console: sorts tables by a column. Pages work without it.
(function () {
  "use strict";
  // The first line of a cell (up to its first <br>): the figure, not its interval or note.
  function firstLine(cell) {
    var text = "";
    for (var node = cell.firstChild; node && node.nodeName !== "BR"; node = node.nextSibling) text += node.textContent;
    return text.trim();
  }
  // A number when the line reads as one (a sign, a currency, commas, a unit after); days stay text.
  function key(text) {
    if (/^\d{4}-\d\d-\d\d/.test(text)) return { text: text };
    var m = /^([+\-\u2212]?)[^\d+\-\u2212]{0,3}?([+\-\u2212]?)(\d[\d,]*(?:\.\d+)?)/.exec(text);
    if (!m) return { text: text };
    var n = parseFloat(m[3].replace(/,/g, ""));
    return { number: m[1] || m[2] ? (/[\-\u2212]/.test(m[1] + m[2]) ? -n : n) : n, text: text };
  }
  function compare(a, b) {
    if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
    if (a.number !== undefined) return -1;
    if (b.number !== undefined) return 1;
    return a.text.localeCompare(b.text);
  }
  function sortable(table) {
    var head = table.tHead, body = table.tBodies[0];
    if (!head || !body || table.classList.contains("ordered") || body.rows.length < 2) return;
    var headers = head.rows[0].cells;
    for (var r = 0; r < body.rows.length; r++) if (body.rows[r].cells.length !== headers.length) return;
    Array.prototype.forEach.call(headers, function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.map.call(body.rows, function (row, index) {
          return { row: row, index: index, key: key(firstLine(row.cells[column])) };
        });
        rows.sort(function (a, b) { return (ascending ? compare(a.key, b.key) : compare(b.key, a.key)) || a.index - b.index; });
        rows.forEach(function (entry) { body.appendChild(entry.row); });
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("main table"), sortable);
})();
"""#
}
