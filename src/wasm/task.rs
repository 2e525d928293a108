//! One call of a client as `src/js/client.js` performs it: the JavaScript
//! awaits (`fetch`, timers, the storage) and calls the task's synchronous
//! steps, which ask the core what to do next: one call's attempts
//! ([`Call`]), a request's course under the cache policy ([`Course`]), a
//! [`Paging`] machine (pages, all, prefetch, refresh), the cache's writes
//! ([`crate::cache::writing`]). No step decides anything itself.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::cache::{online, OfflineCache};
use crate::cache::refresh::{complete_lists, Refresh};
use crate::client::options::ClientOptions;
use crate::client::pager::{Done, Pager, Paging, Step, Via};
use crate::client::request::{Action, Course, Response, Source};
use crate::client::task::{Flow, Machine};
use crate::error::{Error, Result};
use crate::http::call::{shared_key, Call};

#[wasm_bindgen(module = "/src/js/storage.js")]
extern "C" {
    /// `{ value, done }` of an iterator: done without a value.
    pub(crate) fn iteration(value: Option<JsValue>) -> JsValue;
    fn gather(parts: &Array, count: f64, offset: f64) -> JsValue;
    #[wasm_bindgen(js_name = markSource)]
    fn mark_source(text: &JsValue, cached: bool, stale: bool, cached_at: Option<f64>) -> JsValue;
}

/// The body as plain JavaScript (read by `JSON.parse`, so every value is
/// what `JSON.parse` gives), with non-enumerable `source`, `stale` and
/// `cachedAt`. `held`: the network's text that JavaScript still holds, and
/// the body it became here: parsed from there rather than copied out again;
/// or the objects a list the cache computed was made into.
fn to_js(response: &Response, held: &Held) -> JsValue {
    let (body, stale) = (&response.body, response.stale);
    let text = match held {
        Some((rc, text)) if Rc::ptr_eq(rc, body) => text.clone(),
        _ => JsValue::from_str(body),
    };
    let cached = response.source == Source::Cache;
    mark_source(&text, cached, stale, response.cached_at)
}

/// A network answer's body and the JavaScript string it came from, or a
/// cached list's and the objects it was made into ([`Task::make`]).
type Held = Option<(Rc<String>, JsValue)>;

/// A plain object of numbers.
fn counts(entries: &[(&str, f64)]) -> JsValue {
    let object = Object::new();
    for (key, value) in entries {
        let _ = Reflect::set(&object, &JsValue::from_str(key), &JsValue::from_f64(*value));
    }
    object.into()
}

/// What the tasks of one client share (its key is redacted from errors while it lives).
pub(crate) struct Shared {
    /// The client's validated options.
    pub(crate) options: ClientOptions,
    pub(crate) cache: Option<Rc<OfflineCache>>,
    pub(crate) _redacting: crate::Redacting,
}

impl Shared {
    fn cache(&self) -> Result<&Rc<OfflineCache>> {
        self.cache.as_ref().ok_or_else(|| {
            Error::invalid_argument("this needs a client created with the `cache` option")
        })
    }
}

/// One call of a client, performed by `src/js/client.js` (the package does
/// not export it): its [`Flow`], and where `Pages.next` keeps its pager.
#[wasm_bindgen(js_name = _Task, skip_typescript)]
pub struct Task {
    shared: Rc<Shared>,
    pub(crate) flow: Flow,
    pub(crate) pages: Option<Rc<RefCell<Pager>>>,
    held: Held,
    /// `all`'s pages as JavaScript holds them ([`Held`]), those it holds.
    parts: Option<Array>,
}

impl Task {
    /// A task of the client that `shared` is of.
    pub(crate) fn new(shared: Rc<Shared>) -> Task {
        Task {
            shared,
            flow: Flow::default(),
            pages: None,
            held: None,
            parts: None,
        }
    }

    fn machine(&mut self) -> Result<&mut dyn Paging, JsValue> {
        Ok(self.flow.machine.as_mut().ok_or(JsValue::UNDEFINED)?.get())
    }

    /// Makes an answer that the cache computed (a request's, a page's)
    /// into objects at once, from the documents held now; only in the
    /// step that computed it.
    fn make(&mut self, cache: &OfflineCache) {
        if let Some(response) = &self.flow.response {
            if let Some(value) = cache.assemble(response) {
                self.held = Some((response.body.clone(), value));
            }
        }
    }
}

#[wasm_bindgen(js_class = _Task)]
impl Task {
    /// A task for the same request, running beside this one.
    pub fn fork(&self) -> Task {
        let mut task = Task::new(self.shared.clone());
        task.flow.request.clone_from(&self.flow.request);
        task
    }

    /// The request's URL.
    pub fn url(&self) -> String {
        let request = self.flow.request.as_ref();
        request.map(|r| r.url.clone()).unwrap_or_default()
    }

    /// The key under which this GET is shared with the same GETs in flight
    /// (`undefined`: not shared; see [`shared_key`]).
    #[wasm_bindgen(js_name = shareKey)]
    pub fn share_key(&self, retry: bool, signal: bool) -> Option<String> {
        shared_key(&self.url(), signal, retry)
    }

    /// Starts a call; its deadline runs from `started` (Unix ms: when the
    /// caller called, for a call that first shared another's GET), else
    /// from now.
    pub fn begin(&mut self, retry: bool, started: Option<f64>) {
        let options = &self.shared.options;
        let now = started.unwrap_or_else(js_sys::Date::now);
        self.flow.call = Some(Call::new(options.retry, options.timeout_ms, retry, now));
    }

    /// An attempt ended (`send` of `src/js/client.js`): the wait before
    /// the next one (ms), or `undefined` when the body is in; throws the
    /// call's error ([`Flow::ended`]).
    pub fn ended(
        &mut self,
        status: f64,
        text: Option<String>,
        body: Option<String>,
    ) -> Result<Option<f64>, JsValue> {
        let (now, jitter) = (js_sys::Date::now(), js_sys::Math::random());
        let secret = self.shared.options.config.secret();
        let wait = self
            .flow
            .ended(status, text.as_deref(), body, secret, now, jitter)?;
        Ok(wait.map(|ms| ms as f64))
    }

    /// The error of a call stopped by the caller's signal (`aborted`) or
    /// its deadline.
    pub fn stopped(&mut self, aborted: bool) -> JsValue {
        self.flow.stopped(aborted).into()
    }

    /// A `network` error that no attempt made.
    pub fn network(&mut self, message: &str) -> JsValue {
        let message = message.into();
        self.flow.fail(Error::Network { message }).into()
    }

    /// Takes the outcome of `owner`'s GET, which this task shared ([`Flow::adopt`]).
    pub fn adopt(&mut self, owner: &Task) -> Option<f64> {
        self.flow.adopt(&owner.flow)
    }

    /// Checks the body that came in (`text`, JavaScript's string of it) as
    /// the request's answer.
    pub fn answer(&mut self, text: JsValue) -> Result<(), JsValue> {
        let (secret, now) = (self.shared.options.config.secret(), js_sys::Date::now());
        let cache = self.shared.cache.as_ref().map(|cache| cache.state.borrow());
        self.flow.answer(secret, now, cache.as_deref())?;
        let response = self.flow.response.as_ref().filter(|r| r.crossed_whole());
        self.held = response.map(|r| (r.body.clone(), text));
        Ok(())
    }

    /// Plans recording the answer in the cache; the first batch to write.
    #[wasm_bindgen(js_name = planRecord)]
    pub fn plan_record(&mut self) -> Result<JsValue, JsValue> {
        let cache = self.shared.cache()?;
        let planned = self.flow.plan_record(&mut cache.state.borrow_mut());
        let change = planned.map_err(|(error, report)| {
            if report {
                cache.report(error.clone());
            }
            JsValue::from(error)
        })?;
        let body = self.flow.response.as_ref().map(|r| &r.body);
        Ok(cache.write(change, false, body)?)
    }

    /// The record was written: the answer carries the ids it recorded.
    pub fn recorded(&mut self) {
        let flow = &mut self.flow;
        if let (Some(ids), Some(response)) = (flow.ids.take(), flow.response.as_mut()) {
            response.ids = ids;
        }
    }

    /// After the storage's `write()`: the next batch, or `undefined`.
    pub fn written(&self, outcome: JsValue) -> Result<JsValue, JsValue> {
        let cache = self.shared.cache()?;
        let written = cache.outcome("write", &outcome).map(drop);
        Ok(cache.next(Some(written), None)?)
    }

    /// One stored entry, as the storage's load hands it over.
    #[wasm_bindgen(js_name = loadEntry)]
    pub fn load_entry(&self, key: String, text: JsValue) {
        if let Some(cache) = self.shared.cache.as_ref() {
            cache.load_entry(key, text);
        }
    }

    /// After the storage's load: the first batch to write, if any.
    pub fn loaded(&self, outcome: JsValue) -> JsValue {
        let cache = self.shared.cache.as_ref();
        cache.map_or(JsValue::UNDEFINED, |cache| cache.loaded(&outcome))
    }

    /// After the storage's `clear()`: empties the memory too.
    pub fn cleared(&self, outcome: JsValue) -> Result<(), JsValue> {
        let cache = self.shared.cache()?;
        cache.outcome("clear", &outcome)?;
        cache.state.borrow_mut().clear();
        cache.held.clear();
        Ok(())
    }

    /// Tells the cache which query comes first (before it loads).
    pub fn expect(&mut self) -> Result<(), JsValue> {
        self.flow.at = js_sys::Date::now();
        let cache = self.shared.cache()?;
        let request = self.flow.request.as_ref().ok_or(JsValue::UNDEFINED)?;
        cache.state.borrow_mut().expect(&request.query);
        Ok(())
    }

    /// The request's course under the cache policy, once loaded: `false`
    /// (answered), `true` (answered; revalidate), or `[retryNetwork,
    /// raceMs]`: fetch with a fork, then [`Self::after`].
    pub fn start(&mut self) -> Result<JsValue, JsValue> {
        let shared = self.shared.clone();
        let (cache, flow) = (shared.cache()?, &mut self.flow);
        let request = flow.request.as_ref().ok_or(JsValue::UNDEFINED)?;
        let mut state = cache.state.borrow_mut();
        let mut course = Course::start(request, &mut state, &cache.options, flow.at, online);
        drop(state);
        match course.first() {
            Action::Answer {
                response,
                revalidate,
            } => {
                match response {
                    Ok(response) => flow.response = Some(response),
                    Err(error) => flow.failed = Some(error),
                }
                self.make(cache);
                Ok(revalidate.into())
            }
            Action::Fetch {
                retry_network,
                race_ms,
            } => {
                flow.course = Some(course);
                let race = race_ms.map(|ms| ms as f64);
                Ok(Array::of2(&retry_network.into(), &race.into()).into())
            }
            Action::Fail(error) => Err(error.into()),
        }
    }

    /// The answer after the fetch of `fork` (`settled`: done, else the
    /// race's time ran out).
    pub fn after(&mut self, fork: &mut Task, settled: bool) -> Result<(), JsValue> {
        // A cached answer here was computed at `start`: what JavaScript
        // holds may have changed since, so its text is read, not its page.
        self.held = fork.held.take();
        Ok(self.flow.after(&mut fork.flow, settled)?)
    }

    /// The answer, for JavaScript.
    pub fn value(&self) -> Result<JsValue, JsValue> {
        match (&self.flow.response, &self.flow.failed) {
            (Some(response), _) => Ok(to_js(response, &self.held)),
            (None, Some(error)) => Err(error.clone().into()),
            (None, None) => Ok(JsValue::UNDEFINED),
        }
    }

    /// The machine's next step: `0` (fetch under the cache policy), `1`
    /// (fetch and record), `2` (fetch), `3` (write), or the answer.
    pub fn step(&mut self) -> Result<JsValue, JsValue> {
        if let (None, Some(pages)) = (&self.flow.machine, &self.pages) {
            self.flow.machine = Some(Machine::Pager(Box::new(pages.borrow().clone())));
        }
        let shared = self.shared.clone();
        let step = self.machine()?.step(&shared.options.config)?;
        let flow = &mut self.flow;
        (flow.response, flow.failed, flow.at) = (None, None, js_sys::Date::now());
        Ok(match step {
            Step::Fetch { request, via } => {
                flow.request = Some(Rc::new(*request));
                JsValue::from(via as u8)
            }
            Step::Write => JsValue::from(3),
            Step::Done(Done::List(list)) => {
                let (count, total) = (list.facts.count, list.facts.total.unwrap_or_default());
                let offset = total.saturating_sub(count as u64) as f64;
                let parts = self.parts.take();
                let made = parts.map(|parts| gather(&parts, count as f64, offset));
                let held = made.filter(JsValue::is_object);
                to_js(&list, &held.map(|value| (list.body.clone(), value)))
            }
            Step::Done(Done::Pages) => JsValue::UNDEFINED,
            Step::Done(done) => counts(&done.counts()),
        })
    }

    /// Takes in the page fetched: `{ loaded, total }` for `onProgress`, or
    /// `undefined`.
    pub fn receive(&mut self) -> Result<JsValue, JsValue> {
        let (shared, now) = (self.shared.clone(), self.flow.at);
        let mut page = self.flow.response.take().ok_or(JsValue::UNDEFINED)?;
        // A page not held is left out: `gather` counts fewer documents.
        let gathers = matches!(&self.flow.machine, Some(Machine::Pager(p)) if p.gathers());
        let gathered = |(body, _): &(Rc<String>, JsValue)| gathers && Rc::ptr_eq(body, &page.body);
        if let Some((_, value)) = self.held.take().filter(gathered) {
            self.parts.get_or_insert_with(Array::new).push(&value);
        }
        let machine = self.machine()?;
        let received = match &shared.cache {
            Some(cache) => machine.receive(Some(&mut cache.state.borrow_mut()), &mut page, now),
            None => machine.receive(None, &mut page, now),
        }?;
        Ok(received.map_or(JsValue::UNDEFINED, |(loaded, total)| {
            counts(&[("loaded", loaded as f64), ("total", total as f64)])
        }))
    }

    /// Plans the machine's write; the first batch to write.
    #[wasm_bindgen(js_name = planWrite)]
    pub fn plan_write(&mut self) -> Result<JsValue, JsValue> {
        let shared = self.shared.clone();
        let cache = shared.cache()?;
        let change = self.machine()?.write(&cache.state.borrow())?;
        Ok(cache.write(change, false, None)?)
    }

    /// `Pages.next`'s answer: the page taken in, the pager kept.
    pub fn page(&mut self) -> Result<JsValue, JsValue> {
        let flow = &mut self.flow;
        let Some(Machine::Pager(pager)) = &mut flow.machine else {
            return Err(JsValue::UNDEFINED);
        };
        if let Some(page) = &mut flow.response {
            pager.receive(None, page, 0.0)?;
        }
        if let Some(pages) = &self.pages {
            *pages.borrow_mut() = (**pager).clone();
        }
        let value = flow.response.as_ref().map(|r| to_js(r, &self.held));
        Ok(iteration(value))
    }

    /// Starts refreshing the complete list in hand.
    #[wasm_bindgen(js_name = startRefresh)]
    pub fn start_refresh(&mut self) -> Result<(), JsValue> {
        let state = self.shared.cache()?.state.borrow();
        let (endpoint, query) = self.flow.list.take().ok_or(JsValue::UNDEFINED)?;
        let refresh = Box::new(Refresh::start(&state, endpoint, query)?);
        self.flow.machine = Some(Machine::Refresh(refresh));
        Ok(())
    }

    /// Takes the next complete list of the cache to refresh
    /// (`refreshOnReconnect`; listed once, when first called).
    #[wasm_bindgen(js_name = nextList)]
    pub fn next_list(&mut self) -> bool {
        let Some(cache) = &self.shared.cache else {
            return false;
        };
        let flow = &mut self.flow;
        let lists = flow.lists.get_or_insert_with(|| {
            let mut lists = complete_lists(&cache.state.borrow());
            lists.reverse();
            lists
        });
        flow.list = lists.pop();
        flow.list.is_some()
    }
}

/// The fetch of a [`Via`], as [`Task::step`] says it.
const _: () = {
    assert!(Via::Policy as u8 == 0 && Via::Record as u8 == 1 && Via::Plain as u8 == 2);
};
