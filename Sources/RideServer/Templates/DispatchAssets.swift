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
        /* People type anything (a 200-character name without spaces); it must wrap, not widen the
           table. The columns share the width (fixed layout), so no column is squeezed to a few
           letters: a word breaks only when it alone is wider than its column (never "Hospit/al"). */
        table.stacking { table-layout: fixed; }
        tbody th, tbody td { overflow-wrap: break-word; }
        /* A ride code is one word, never broken ("RXN/H"). */
        td.code { white-space: nowrap; overflow-wrap: normal; }
        /* Our own words set the columns' minimum widths, so they never break mid-word. */
        thead th, td.state, td.minutes { overflow-wrap: normal; }
        thead th { border-bottom-width: 2px; }
        td.state { font-weight: bold; }
        button, input, select, textarea { font: inherit; max-width: 100%; box-sizing: border-box; }
        /* 44 px targets (WCAG 2.5.5) for everything a dispatcher presses. */
        button, .button, select { min-height: 2.75rem; min-width: 2.75rem; padding: 0.2em 0.8em; }
        button, .button { white-space: nowrap; }
        .button { display: inline-block; line-height: 2.2rem; border: 2px solid #1b1b1b; color: #1b1b1b; background: #f0f0f0; text-decoration: none; }
        /* What cannot be undone looks like it: white on red (7.2:1), as on the passenger page. */
        button.warning, .button.warning { background: #a51d2d; color: #fff; border: 2px solid #a51d2d; }
        #attention-summary { font-size: 1.125rem; }
        textarea { width: 100%; }
        form.assign label { display: block; }
        tr.attention { background: #fff4ce; }
        .flag { display: block; color: #7a2e00; }
        #attention-summary.attention { font-weight: bold; border-left: 0.3em solid #a51d2d; padding-left: 0.6em; }
        .error-summary { border: 4px solid #a51d2d; padding: 0.5rem 1rem; margin-bottom: 1rem; }
        .field-error { color: #a51d2d; font-weight: bold; }
        .visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
        /* Phones and narrow windows: each row becomes a block of "Column: value" lines, so the
           Cancel control is on screen without sideways scrolling. */
        @media (max-width: 48rem) {
          table.stacking, table.stacking tbody, table.stacking tr, table.stacking th, table.stacking td, table.stacking caption { display: block; width: auto; }
          table.stacking thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); }
          table.stacking tr { border-bottom: 2px solid #767676; padding: 0.5rem 0; }
          table.stacking tbody th, table.stacking tbody td { border: 0; padding: 0.1em 0; }
          table.stacking td[data-label]::before, table.stacking th[data-label]::before { content: attr(data-label) ": "; font-weight: bold; }
        }
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
          let refresh = async function () {
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
          // A passenger's message to her driver (issue 25): said in the live region, in her words.
          source.addEventListener('passenger_message', (message) => {
            const event = JSON.parse(message.data);
            const name = rowFor(event.requestId)?.dataset.passenger ?? 'a passenger';
            announce(`Message from ${name} to the driver: ${event.detail ?? ''}`);
          });
          // Rides needing attention are flagged in the table; newly flagged ones are also said in
          // the live region with a short tone (browsers allow sound only after a user gesture,
          // so the tone may stay silent until the dispatcher has clicked or pressed a key).
          const flagged = new Set([...board.querySelectorAll('tr[data-attention]')].map(r => r.dataset.rideId));
          let audio = null;
          function tone() {
            try {
              audio ??= new AudioContext();
              const oscillator = audio.createOscillator(), gain = audio.createGain();
              oscillator.frequency.value = 880;
              gain.gain.setValueAtTime(0.2, audio.currentTime);
              gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.3);
              oscillator.connect(gain).connect(audio.destination);
              oscillator.start();
              oscillator.stop(audio.currentTime + 0.3);
            } catch (_) { /* no audio device: the flag and the announcement remain */ }
          }
          function checkAttention() {
            for (const row of board.querySelectorAll('tr[data-attention]')) {
              if (flagged.has(row.dataset.rideId)) continue;
              flagged.add(row.dataset.rideId);
              announce(`Ride ${row.dataset.code} for ${row.dataset.passenger}: ${row.dataset.attention}`);
              tone();
              document.documentElement.dataset.toned = String(Number(document.documentElement.dataset.toned ?? 0) + 1);
            }
          }
          const boardRefresh = refresh;
          refresh = async () => { await boardRefresh(); checkAttention(); };
          // Keeps "minutes in state" current while nothing happens.
          setInterval(refresh, 60000);
          document.documentElement.dataset.live = 'on';
        })();
        """
}
