// gieok web UI: small enhancements only; every form works without this script.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // deleting a bank: the button wakes up once the bank's name is typed exactly
  document.querySelectorAll("form.delete-bank").forEach(function (form) {
    var input = form.querySelector("input[name=confirm]");
    var button = form.querySelector("button");
    var check = function () { button.disabled = input.value.trim() !== form.dataset.bank; };
    input.addEventListener("input", check);
    check();
  });
  // erasing: ask once more (the text comes from the page, already in the reader's language)
  document.querySelectorAll("form.confirm").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (form.dataset.noConfirm === "1") { return; }
      if (!window.confirm(form.dataset.confirm)) { event.preventDefault(); }
    });
  });
});
