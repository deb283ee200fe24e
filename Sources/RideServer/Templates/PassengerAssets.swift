// Static files of the passenger page, served from /assets/ so the Content Security Policy can
// forbid inline script and style.

enum PassengerAssets {
    /// Phone first: one column, text that wraps, every control at least 44 px high and wide
    /// (WCAG 2.5.5), nothing wider than the screen.
    static let css = """
        :root { font-family: system-ui, sans-serif; font-size: 1.125rem; line-height: 1.5; color: #0b0c0c; background: #fff; }
        /* break-word, not anywhere: a word breaks only when it alone is wider than its line, so
           "Hospital" or a ride code never breaks at 1280 px, and a 200-character name still wraps. */
        body { margin: 0 auto; padding: 1rem; max-width: 40rem; overflow-wrap: break-word; }
        h1 { font-size: 2rem; line-height: 1.2; margin: 0.5rem 0 1rem; }
        h2 { font-size: 1.375rem; }
        header { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; justify-content: space-between; }
        header p { margin: 0; }
        .field { margin: 0 0 1.5rem; }
        label { display: block; font-weight: bold; }
        .hint { color: #505a5f; margin: 0.2rem 0; }
        input, textarea { font: inherit; box-sizing: border-box; width: 100%; min-height: 2.75rem; padding: 0.4rem;
          border: 2px solid #0b0c0c; border-radius: 0; }
        input[aria-invalid="true"], textarea[aria-invalid="true"] { border-color: #d4351c; border-width: 4px; }
        button, .button { font: inherit; display: inline-block; box-sizing: border-box; min-height: 2.75rem; min-width: 2.75rem;
          padding: 0.5rem 1rem; border: 2px solid transparent; border-radius: 0; background: #00703c; color: #fff;
          text-decoration: none; cursor: pointer; text-align: center; max-width: 100%; }
        button.secondary, .button.secondary { background: #f3f2f1; color: #0b0c0c; border-color: #0b0c0c; }
        button.warning, .button.warning { background: #d4351c; color: #fff; }
        a { color: #1d70b8; }
        :focus-visible { outline: 3px solid #fd0; outline-offset: 0; box-shadow: 0 0 0 6px #0b0c0c; }
        .error-summary { border: 5px solid #d4351c; padding: 1rem; margin: 0 0 1.5rem; }
        .error-summary h2 { margin-top: 0; }
        .error-summary a { color: #d4351c; font-weight: bold; }
        .error-summary li { margin: 0.25rem 0; min-height: 2.75rem; }
        .field-error { color: #d4351c; font-weight: bold; margin: 0.2rem 0; }
        .notice { border-left: 0.3em solid #1d70b8; padding-left: 0.6em; }
        .sentence { font-size: 1.25rem; font-weight: bold; }
        dl { display: grid; grid-template-columns: minmax(6rem, max-content) 1fr; gap: 0.25rem 1rem; }
        dt { font-weight: bold; }
        dd { margin: 0; }
        dl > *, header > * { min-width: 0; }
        .code { white-space: nowrap; font-variant-numeric: tabular-nums; letter-spacing: 0.05em; }
        header form.language { display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; align-items: center; }
        header form.language label { display: inline; }
        select { font: inherit; min-height: 2.75rem; border: 2px solid #0b0c0c; background: #fff; color: #0b0c0c; }
        .places li { margin: 0.5rem 0; }
        .places form { display: inline-flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; }
        code { overflow-wrap: anywhere; }
        .position-line { margin: 0 0 1rem; }
        .kerb-actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
        #kerb-live:empty { display: none; }
        summary { min-height: 2.75rem; padding: 0.5rem 0; cursor: pointer; color: #1d70b8; text-decoration: underline; }
        #message-form select { width: 100%; margin: 0.25rem 0 0.5rem; }
        .visually-hidden { position: absolute !important; width: 1px; height: 1px; margin: 0; padding: 0; overflow: hidden;
          clip: rect(0 0 0 0); clip-path: inset(50%); border: 0; white-space: nowrap; }
        """

    /// Follows the ride live, and while it is accepted or arrived reports her position to her
    /// driver (issue 35: `PositionSharing`, below). While the request waits there is no ride and so no ride stream
    /// yet: the script asks for the state every 5 s until a driver accepts, then opens the
    /// ride's event stream (the session cookie authenticates it), resuming from the event id
    /// the page was rendered at. Each change swaps in the server-rendered state and puts its
    /// sentence into the polite live region.
    static let js = """
        (() => {
          // After a form error, focus goes to the error summary so it is read first.
          const summary = document.getElementById('error-summary');
          if (summary && document.activeElement !== summary) summary.focus();
          const holder = document.getElementById('ride-status');
          const live = document.getElementById('ride-live');
          if (!holder || !live) { document.documentElement.dataset.live = 'idle'; return; }
          let source = null, timer = null, lastSaid = '';

          const stateOf = () => holder.querySelector('#ride-state');

          function say(text) {
            if (!text || text === lastSaid) return;
            lastSaid = text;
            live.textContent = text;
          }

          async function refresh() {
            const response = await fetch('/ride/status', { headers: { Accept: 'text/html' } });
            if (response.status === 401 || response.status === 403) { location.assign('/'); return; }
            if (!response.ok) return;
            holder.innerHTML = await response.text();
            const state = stateOf();
            say(state?.querySelector('.sentence')?.textContent);
            const finished = !state || state.dataset.state === 'none';
            if (finished) {
              // Cancelled or completed elsewhere: the page itself changes (form instead of ride).
              source?.close();
              clearInterval(timer);
              document.getElementById('cancel-link')?.remove();
              return;
            }
            follow();
          }

          function follow() {
            const rideId = stateOf()?.dataset.rideId;
            if (!rideId) {
              if (!timer) timer = setInterval(refresh, 5000);
              return;
            }
            clearInterval(timer);
            timer = null;
            if (source) return;
            source = new EventSource(`/v1/rides/${encodeURIComponent(rideId)}/events?after=` +
                                     encodeURIComponent(document.body.dataset.lastEventId));
            source.addEventListener('open', () => { document.documentElement.dataset.stream = 'open'; });
            source.addEventListener('error', () => { document.documentElement.dataset.stream = 'retrying'; });
            // State changes, and the driver's ETA (an event that changes no state).
            // The guide reporting in changes what the page says to do at the kerb.
            for (const state of ['accepted', 'arrived', 'confirmed', 'completed', 'cancelled', 'eta_given', 'guide_started', 'guide_stopped']) {
              source.addEventListener(state, refresh);
            }
            // The driver's device answering her at the kerb: said by the kerb's script, below.
            for (const kind of ['come_received', 'come_answered', 'locator_answered']) {
              source.addEventListener(kind, (event) => {
                holder.dispatchEvent(new CustomEvent('ride-event', { detail: JSON.parse(event.data) }));
              });
            }
          }

          lastSaid = stateOf()?.querySelector('.sentence')?.textContent ?? '';
          follow();
          document.documentElement.dataset.live = 'on';
        })();
        """ + kerb + positionSharing

    /// Issue 37, point 2: at the kerb she asks him to come, asks for a sound, hears the ride
    /// word (a `details`, no script), messages him; each answer is put in `#kerb-live`
    /// (role=status) as it happens. "Asking Ben to come to you" once the service recorded it;
    /// "Ben's phone has your request" and "Ben is coming to you" only on his device's events;
    /// no answer within `data-wait` seconds: said so, with the next step. The section is part
    /// of the swapped status, so the script listens on the status holder.
    static let kerb = """
        (() => {
          const holder = document.getElementById('ride-status');
          const csrf = document.getElementById('position-line')?.dataset.csrf ?? '';
          if (!holder) return;
          let comeTimer = null, come = null;
          const kerb = () => holder.querySelector('#kerb');

          function tell(text) {
            const out = holder.querySelector('#kerb-live');
            if (out && text) out.textContent = text;
          }

          async function post(path, body) {
            const rideId = holder.querySelector('#ride-state')?.dataset.rideId;
            if (!rideId) return null;
            try {
              return await fetch(`/v1/rides/${encodeURIComponent(rideId)}/${path}`, {
                method: 'POST', credentials: 'same-origin', body: JSON.stringify(body ?? {}),
                headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf } });
            } catch { return null; }
          }

          function waitForAnswer(section) {
            clearTimeout(comeTimer);
            come = 'asked';
            comeTimer = setTimeout(() => {
              const now = kerb();
              if (!now || come === 'answered') return;
              tell(come === 'received' ? now.dataset.receivedNoAnswer : now.dataset.noAnswer);
            }, Number(section.dataset.wait) * 1000);
          }

          holder.addEventListener('click', async (event) => {
            const section = kerb();
            if (!section) return;
            if (event.target.closest('#ask-come')) {
              const response = await post('come');
              if (response?.status === 201) { tell(section.dataset.asking); waitForAnswer(section); }
              else if (response?.status === 429) { tell(section.dataset.askedAlready); waitForAnswer(section); }
              else tell(section.dataset.failed);
            } else if (event.target.closest('#ask-sound')) {
              const response = await post('locator');
              if (response?.status === 202) tell(section.dataset.soundAsked);
              else if (response?.status === 429) tell(section.dataset.soundAskedAlready);
              else tell(section.dataset.failed);
            }
          });

          holder.addEventListener('submit', async (event) => {
            if (!event.target.closest('#message-form')) return;
            event.preventDefault();
            const section = kerb();
            if (!section) return;
            const response = await post('messages', { preset: holder.querySelector('#message-preset')?.value });
            tell(response?.status === 201 ? section.dataset.messageSent : section.dataset.failed);
          });

          holder.addEventListener('ride-event', (event) => {
            const section = kerb();
            if (!section) return;
            const { kind, detail } = event.detail;
            if (kind === 'come_received') {
              if (come !== 'answered') come = 'received';
              tell(section.dataset.received);
            } else if (kind === 'come_answered') {
              come = 'answered';
              clearTimeout(comeTimer);
              tell(detail === 'coming' ? section.dataset.coming : section.dataset.staying);
            } else if (kind === 'locator_answered') {
              tell({ horn: section.dataset.horn, voice: section.dataset.voice, device: section.dataset.device }[detail]
                   ?? section.dataset.noSound);
            }
          });
        })();
        """

    /// Issue 35: while her ride is accepted or arrived the page watches her position
    /// (Geolocation API, high accuracy) and sends it to `PUT /v1/rides/{id}/position` with the
    /// session cookie and the session's CSRF token, at most one a second (the server's rate;
    /// the newest fix waits for the next second rather than being dropped). It stops when the
    /// ride moves on (the status swap above changes `#ride-state`) or the server says the ride
    /// is over. `#position-line` (role=status) says plainly whether her position is shared,
    /// and when the browser may not use her location, that it is not.
    static let positionSharing = """
        (() => {
          const line = document.getElementById('position-line');
          const holder = document.getElementById('ride-status');
          if (!line || !holder) return;
          let watch = null, latest = null, lastSent = 0, timer = null, shared = false;

          function tell(text, state) {
            document.documentElement.dataset.position = state;
            if (line.textContent !== text) line.textContent = text;
          }

          const ride = () => {
            const state = holder.querySelector('#ride-state');
            const wanted = state && ['accepted', 'arrived'].includes(state.dataset.state);
            return wanted ? state.dataset.rideId : null;
          };

          function stop() {
            if (watch !== null) navigator.geolocation.clearWatch(watch);
            watch = null;
            clearTimeout(timer);
            timer = null;
          }

          async function send() {
            timer = null;
            const rideId = ride();
            if (!rideId || !latest) return;
            const c = latest.coords;
            const body = { latitude: c.latitude, longitude: c.longitude, accuracyMeters: c.accuracy,
                           recordedAt: new Date(latest.timestamp).toISOString() };
            latest = null;
            lastSent = Date.now();
            const response = await fetch(`/v1/rides/${encodeURIComponent(rideId)}/position`, {
              method: 'PUT', credentials: 'same-origin', body: JSON.stringify(body),
              headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': line.dataset.csrf } });
            if (response.status === 204) {
              if (!shared) { shared = true; tell(line.dataset.sharing, 'shared'); }
            } else if (response.status === 409 || response.status === 404) {
              stop();
            }
          }

          function fixed(position) {
            // A fix the server would refuse says nothing useful: no accuracy, or one wider than 10 km.
            if (!(position.coords.accuracy > 0 && position.coords.accuracy <= 10000)) return;
            latest = position;
            if (timer) return;
            timer = setTimeout(send, Math.max(0, lastSent + 1000 - Date.now()));
          }

          function failed(error) {
            if (error.code === error.PERMISSION_DENIED) {
              stop();
              tell(line.dataset.refused, 'refused');
            } else if (!shared) {
              tell(line.dataset.unavailable, 'unavailable');
            }
          }

          function update() {
            if (!ride()) {
              // Confirmed, cancelled or completed: the server deleted her position; say nothing more.
              stop();
              if (shared) { shared = false; tell('', 'stopped'); }
              return;
            }
            if (watch !== null) return;
            if (!('geolocation' in navigator)) { tell(line.dataset.unavailable, 'unavailable'); return; }
            watch = navigator.geolocation.watchPosition(fixed, failed, { enableHighAccuracy: true, maximumAge: 0, timeout: 30000 });
          }

          // The ride's state arrives by the status swap; watch for it rather than hook the stream.
          new MutationObserver(update).observe(holder, { childList: true, subtree: true });
          update();
        })();
        """
}
