/**
 * The dashboard's one script, inlined and allowed by its hash (no inline handlers): it only adds to
 * forms and links that work without it. Copy buttons (shown only when the script runs), a question
 * before a submit whose button or form has `data-confirm` (answered OK, it sets the form's `confirmed`
 * field, so the server does not ask again on a page), a box that selects every row, and a search
 * box that submits its form a moment after typing stops.
 */
export const DASHBOARD_SCRIPT = `(function(){var d=document;
d.querySelectorAll('[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){var t=b.getAttribute('data-copy');navigator.clipboard.writeText(t).then(function(){var o=b.textContent;b.textContent='Copied';setTimeout(function(){b.textContent=o},1500)})})});
d.addEventListener('submit',function(e){var s=e.submitter,q=(s&&s.getAttribute('data-confirm'))||e.target.getAttribute('data-confirm');if(!q)return;if(!window.confirm(q)){e.preventDefault();return}var c=e.target.querySelector('input[name=confirmed]');if(c)c.value='yes'});
d.querySelectorAll('[data-select-all]').forEach(function(a){a.hidden=false;a.addEventListener('change',function(){d.querySelectorAll('input[name=ids]').forEach(function(i){i.checked=a.checked})})});
var q=d.querySelector('[data-live-search]');if(q&&q.form){var t;q.addEventListener('input',function(){clearTimeout(t);t=setTimeout(function(){q.form.requestSubmit()},400)});if(q.value){q.focus();q.setSelectionRange(q.value.length,q.value.length)}}
})();`;
