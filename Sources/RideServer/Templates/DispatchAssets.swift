// Static files of the dispatcher page, served from /dispatch/assets/ so the Content Security
// Policy can forbid inline script and style.

enum DispatchAssets {
    /// Relative units and wrapping cells only: at 200 % zoom (or a phone) the tables reflow
    /// instead of scrolling sideways, and they keep their table semantics.
    static let css = """
        :root { font-family: system-ui, sans-serif; line-height: 1.5; color: #1b1b1b; background: #fff; }
        body { margin: 0 auto; padding: 1rem; max-width: 72rem; }
        h1 { font-size: 1.75rem; margin: 0 0 0.5rem; }
        h2 { font-size: 1.25rem; }
        header form { display: inline; }
        table { border-collapse: collapse; width: 100%; margin: 1rem 0 2rem; }
        caption { text-align: left; font-weight: bold; font-size: 1.125rem; padding: 0.5em 0; }
        th, td { text-align: left; vertical-align: top; padding: 0.4em 0.5em; border-bottom: 1px solid #767676; }
        /* People type anything (a 200-character name without spaces); it must wrap, not widen the table. */
        tbody th, tbody td { overflow-wrap: anywhere; }
        /* Our own words set the columns' minimum widths, so they never break mid-word. */
        thead th, td.state, td.minutes { overflow-wrap: normal; }
        thead th { border-bottom-width: 2px; }
        td.state { font-weight: bold; }
        button, input { font: inherit; max-width: 100%; }
        button { padding: 0.2em 0.8em; white-space: nowrap; }
        :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
        .notice { border-left: 0.3em solid #1a5fb4; padding-left: 0.6em; }
        .error { border-left: 0.3em solid #a51d2d; padding-left: 0.6em; }
        #announcements p { margin: 0.2em 0; }
        """

    /// Follows the dispatcher event stream (the session cookie authenticates it), re-fetches
    /// the server-rendered tables on every event and says what changed in the live region. It
    /// resumes from the event id the page was rendered at, so nothing between render and
    /// connect is missed; EventSource's own reconnects resume with Last-Event-ID.
    static let js = """
        (() => {
          const board = document.getElementById('board');
          const live = document.getElementById('announcements');
          const states = ['requested', 'accepted', 'arrived', 'confirmed', 'completed', 'cancelled'];
          let running = null, again = false;

          const rowFor = (requestId) => board.querySelector(`tr[data-request-id="${CSS.escape(requestId)}"]`);

          async function fetchBoard() {
            const response = await fetch(document.body.dataset.boardPath, { headers: { Accept: 'text/html' } });
            if (response.status === 401 || response.status === 403) { location.assign('/dispatch/login'); return; }
            if (!response.ok) return;
            const html = await response.text();
            // Replacing the tables would drop keyboard focus; put it back on the same control.
            const focused = document.activeElement && board.contains(document.activeElement) ? document.activeElement.id : null;
            board.innerHTML = html;
            if (focused) document.getElementById(focused)?.focus();
          }

          // Refreshes coalesce: events arriving during a fetch cause one more fetch, not one each.
          async function refresh() {
            if (running) { again = true; return running; }
            running = (async () => { do { again = false; await fetchBoard(); } while (again); })();
            try { await running; } finally { running = null; }
          }

          function announce(text) {
            const line = document.createElement('p');
            line.textContent = text;
            live.append(line);
            while (live.children.length > 5) live.firstElementChild.remove();
          }

          const source = new EventSource('/v1/events?after=' + encodeURIComponent(document.body.dataset.lastEventId));
          // For tests and styling: whether the live feed is connected right now.
          source.addEventListener('open', () => { document.documentElement.dataset.stream = 'open'; });
          source.addEventListener('error', () => { document.documentElement.dataset.stream = 'retrying'; });
          for (const state of states) {
            source.addEventListener(state, async (message) => {
              const event = JSON.parse(message.data);
              // Finished rides leave the table, so read the name before refreshing.
              const before = rowFor(event.requestId)?.dataset.passenger;
              await refresh();
              const name = before ?? rowFor(event.requestId)?.dataset.passenger ?? 'a passenger';
              announce(`Ride for ${name}: ${state}`);
            });
          }
          // Keeps "minutes in state" current while nothing happens.
          setInterval(refresh, 60000);
          document.documentElement.dataset.live = 'on';
        })();
        """
}
