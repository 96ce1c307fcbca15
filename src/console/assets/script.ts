/**
 * console.js: live updates of the runs list. Every 5 s it asks for the same URL with
 * `?fragment=rows`, swaps the table body in when its signature changed, and says so in
 * the page's polite live region. The page works the same without it (a Refresh link).
 */
export const CONSOLE_JS = `'use strict';
(function () {
  var body = document.querySelector('[data-live-rows]');
  var status = document.getElementById('live-status');
  if (!body || !status || !window.fetch) return;
  var INTERVAL_MS = 5000;
  var stopped = false;
  function say(text) { status.textContent = text; }
  function refresh() {
    if (stopped || document.hidden) return;
    var url = new URL(window.location.href);
    url.searchParams.set('fragment', 'rows');
    fetch(url.toString(), { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'text/html' } })
      .then(function (response) {
        if (response.status === 401) { stopped = true; say('You were signed out: reload the page to sign in again.'); return; }
        if (!response.ok) { say('Live updates paused: the server answered ' + response.status + '.'); return; }
        var signature = response.headers.get('x-rows-signature');
        return response.text().then(function (text) {
          if (signature && signature === body.getAttribute('data-rows-signature')) return;
          // Never pull the rows from under a keyboard user's focus: the next tick tries again.
          if (body.contains(document.activeElement)) return;
          body.innerHTML = text;
          if (signature) body.setAttribute('data-rows-signature', signature);
          var count = body.querySelectorAll('tr a').length;
          say('Runs updated at ' + new Date().toLocaleTimeString() + ': ' + count + ' shown.');
        });
      })
      .catch(function () { say('Live updates paused: the server did not answer.'); });
  }
  window.setInterval(refresh, INTERVAL_MS);
})();
`;
