// Copy buttons beside a secret shown once: `<button data-copy="element-id" hidden>`. Pages work
// without this script (the button stays hidden and the text can be selected by hand).
(function () {
  'use strict';
  function select(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  function copied(button, ok) {
    var label = button.dataset.label || button.textContent.trim();
    button.dataset.label = label;
    button.textContent = ok ? 'Copied' : 'Press Ctrl+C to copy';
    setTimeout(function () {
      button.textContent = label;
    }, 2000);
  }
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var target = document.getElementById(button.dataset.copy);
    if (!target) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var text = target.textContent;
      if (window.navigator.clipboard && window.isSecureContext) {
        window.navigator.clipboard.writeText(text).then(
          function () {
            copied(button, true);
          },
          function () {
            select(target);
            copied(button, false);
          },
        );
      } else {
        select(target);
        var ok = false;
        try {
          ok = document.execCommand('copy');
        } catch {
          ok = false;
        }
        copied(button, ok);
      }
    });
  });
})();
