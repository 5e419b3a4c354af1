"""The page's own stylesheet and script: the only ones its Content-Security-Policy allows
(by their sha256, html_page.py). Kept apart from the markup that uses them.

The layout reads on any screen: tables scroll inside their own boxes, never the page; a
header wraps between its words, never inside one; below 600 px each row of the rows' table
is a card, its cells labelled; wider, a row that is open or opened at its anchor names each
score above its value (the table's header is far above it then). The script (with
JavaScript off every row shows and the filters stay hidden): filters (dataset, score,
verdict including "newly failing since the baseline", where they start when there are some:
the form says which), a search that opens the rows it finds (when it finds ten at most;
among all rows while the verdict filter is where it started), a sort by any score, the
state kept in the address where it differs from the start (`#!status=all&sort=
groundedness-asc`), and a row's anchor (`#news/row-7`) opening that row; an anchor that
names no row (or is not a valid address) says so at the top of the page instead.
"""

STYLE = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;
--card:#f6f8fa;--good:#1a7f37;--bad:#cf222e;--warn:#9a6700;--ev:#fff3b0;--near:#ddf4ff;
--evgood:#dafbe1;--ubad:#ffebe9;--ucon:#ffd8d3;--ugood:#dafbe1;--bar0:#0969da;
--bar1:#cf222e;--target:#fff8c5}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;
--line:#3d444d;--card:#151b23;--good:#3fb950;--bad:#f85149;--warn:#d29922;--ev:#5a4a00;
--near:#0c2d6b;--evgood:#12361f;--ubad:#5d1a1a;--ucon:#7a1f1f;--ugood:#12361f;
--bar0:#4493f8;--bar1:#f85149;--target:#3b2e00}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:1rem;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;overflow-wrap:break-word}
h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--line);
padding:.25rem .4rem;text-align:left;vertical-align:top}th{background:var(--card);
word-break:keep-all;overflow-wrap:normal}
.passed{color:var(--good)}.failed{color:var(--bad)}.incomplete,.warn{color:var(--warn)}
.muted,.tick{color:var(--muted);fill:var(--muted)}.num{font-variant-numeric:tabular-nums;
white-space:nowrap}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0;background:var(--card);
padding:.5rem;border-radius:6px;width:22rem;max-width:100%}figcaption{font-weight:600}
figcaption .muted{font-weight:400;font-size:.85rem}
.chart{max-width:100%;height:auto}.chart .tick,.chart .mark{font-size:10px}
.bar.s0{fill:var(--bar0)}.bar.s1,.bar.fail{fill:var(--bar1)}.axis,.frame{stroke:var(--muted);
fill:none}
.threshold,.suggested{stroke:var(--bad);stroke-width:2;stroke-dasharray:4 2}
.mark{fill:var(--fg)}circle.suggested{fill:var(--bad);stroke:none}
.band{fill:var(--bad);opacity:.15}.chance{stroke:var(--line);stroke-dasharray:3 3;fill:none}
.roc{stroke:var(--bar0);stroke-width:2;fill:none}.mean{stroke:var(--fg);stroke-dasharray:1 2}
#filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin:.5rem 0}
#filters[hidden]{display:none}#filters select,#filters input{max-width:100%}
tbody.row>tr.detail>td{padding:0 .4rem .5rem}details>summary{cursor:pointer;color:var(--muted)}
tbody.row:target>tr:first-child,tbody.row.target>tr:first-child{background:var(--target)}
.text{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);padding:.5rem;
border-radius:6px;margin:.25rem 0 .5rem;max-height:28rem;overflow:auto}
mark{color:inherit;border-radius:3px;padding:0 1px}
mark.u-bad{background:var(--ubad)}mark.u-contra{background:var(--ucon);
text-decoration:underline wavy var(--bad)}mark.u-good{background:var(--ugood)}
mark.u-other{background:var(--card);outline:1px dashed var(--line)}
mark.ev{background:var(--ev)}mark.ev-good{background:var(--evgood)}
mark.near{background:var(--near);border-bottom:1px dashed var(--muted);border-radius:0}
a{color:var(--bar0)}.notice{color:var(--fg);background:var(--target);border:1px solid
var(--warn);border-radius:6px;padding:.4rem .6rem}.notice[hidden]{display:none}
.causes>li{margin:.35rem 0}.members{margin:.15rem 0;padding-left:1.2rem}.said{color:var(--muted)}
.sn{display:none;font-size:.75rem;color:var(--muted)}tbody.row:target .sn,tbody.row.target .sn,
tbody.row:has(details[open]) .sn{display:block}
td.passed,td.failed,.causes a{white-space:nowrap}td.noise{min-width:12rem}
td.why{min-width:12rem}td.change{min-width:13rem}
sup.tag{font-size:.7em;color:var(--muted);margin-left:1px}
.v-bad,.v-contra{color:var(--bad);font-weight:600}.v-good{color:var(--good)}
.legend mark{margin-right:.6rem}td.id{overflow-wrap:anywhere;min-width:6rem}
.units td:nth-child(3),.units td:last-child{overflow-wrap:anywhere;min-width:10rem}
.diff td{width:50%;overflow-wrap:anywhere}.was{color:var(--muted)}
@media (max-width:600px){body{padding:.5rem}
#row-table>thead,table.cards>thead{display:none}
#row-table,#row-table>tbody,#row-table>tbody>tr,#row-table>tbody>tr>td,table.cards,
table.cards>tbody,table.cards>tbody>tr,table.cards>tbody>tr>td{display:block;width:auto}
#row-table>tbody.row,table.cards>tbody>tr{border:1px solid var(--line);border-radius:6px;
margin:.5rem 0;padding:.25rem}#row-table>tbody>tr>td,table.cards>tbody>tr>td{border:0;
padding:.1rem .3rem;white-space:normal}
td[data-label]::before{content:attr(data-label) ": ";color:var(--muted)}
td.id,.units td:nth-child(3),.units td:last-child{min-width:0}#row-table td .sn{display:none}
td.why,td.noise,td.change{min-width:0}}
"""

SCRIPT = """
(function(){
var note=document.getElementById('notice');
function notice(text){if(note){note.textContent=text;note.hidden=!text;}}
var form=document.getElementById('filters');
var table=document.getElementById('row-table');
var rows=Array.prototype.slice.call(document.querySelectorAll('tbody.row'));
var info=rows.map(function(tb,i){return{tb:tb,order:i,dataset:tb.getAttribute('data-dataset'),
values:JSON.parse(tb.getAttribute('data-values')),failing:JSON.parse(tb.getAttribute('data-failing')),
standing:tb.getAttribute('data-standing'),fixed:tb.getAttribute('data-fixed')==='1',
key:tb.id,text:null};});
var f=form?{dataset:document.getElementById('f-dataset'),score:document.getElementById('f-score'),
status:document.getElementById('f-status'),q:document.getElementById('f-search'),
sort:document.getElementById('f-sort')}:null;var out=document.getElementById('f-count');
var start={};if(f){form.hidden=false;Object.keys(f).forEach(function(k){start[k]=f[k].value;});}
function shown(r){var d=f.dataset.value,s=f.score.value,st=f.status.value;
if(d&&r.dataset!==d)return false;if(s&&!(s in r.values)&&r.failing.indexOf(s)<0)return false;
var fails=s?r.failing.indexOf(s)>=0:r.failing.length>0;
if(st==='fail'&&!fails)return false;if(st==='pass'&&fails)return false;
if(st==='new'&&r.standing!=='new')return false;if(st==='before'&&r.standing!=='before')return false;
if(st==='fixed'&&!r.fixed)return false;
var q=f.q.value.trim().toLowerCase();if(q){if(r.text===null){r.text=r.tb.textContent.toLowerCase();}
if(r.text.indexOf(q)<0)return false;}return true;}
function sorted(){var v=f.sort.value;if(!v)return info.slice();var cut=v.lastIndexOf('-');
var s=v.slice(0,cut),up=v.slice(cut+1)==='asc';return info.slice().sort(function(a,b){
var x=a.values[s],y=b.values[s];if(x===undefined&&y===undefined)return a.order-b.order;
if(x===undefined)return 1;if(y===undefined)return -1;
return up?x-y||a.order-b.order:y-x||a.order-b.order;});}
function state(){var p=[];Object.keys(f).forEach(function(k){if(f[k].value!==start[k]){
p.push(k+'='+encodeURIComponent(f[k].value));}});return p.length?'#!'+p.join('&'):'';}
var order='',OPEN=10,chosen=false;
function apply(save){if(!f)return;var n=0,q=f.q.value.trim(),list=info;
if(f.sort.value!==order){order=f.sort.value;list=sorted();
list.forEach(function(r){table.appendChild(r.tb);});}
var found=[];list.forEach(function(r){var ok=shown(r);r.tb.hidden=!ok;if(ok){n++;found.push(r);}});
if(q&&found.length<=OPEN){found.forEach(function(r){r.tb.querySelector('details').open=true;});}
var st=f.status.options[f.status.selectedIndex];
out.textContent=n+' of '+info.length+' rows shown'+(st&&st.value!=='all'?' ('+st.text+')':'');
if(save&&history.replaceState){history.replaceState(null,'',location.pathname+location.search+state());}}
function open(key){var r=info.filter(function(x){return x.key===key;})[0]||
info.filter(function(x){return x.key.slice(x.dataset.length+1)===key;})[0];if(!r)return false;
if(f){Object.keys(f).forEach(function(k){if(k!=='sort'){f[k].value=k==='status'?'all':'';}});apply(false);}
info.forEach(function(x){x.tb.classList.remove('target');});r.tb.classList.add('target');
r.tb.querySelector('details').open=true;r.tb.scrollIntoView();return true;}
function route(){var h=location.hash.slice(1);notice('');if(!h)return;
if(h.charAt(0)!=='!'){var key=h,bad=false;try{key=decodeURIComponent(h);}catch(e){bad=true;}
var el=bad?null:document.getElementById(key);if(el&&!el.classList.contains('row'))return;
if(!open(key)){notice('No row '+key+' in this report'+
(bad?' (the address after # is not a valid one)':'')+': the page is shown from the top.');
window.scrollTo(0,0);}return;}
if(!f)return;Object.keys(f).forEach(function(k){f[k].value=start[k];});
h.slice(1).split('&').forEach(function(p){var i=p.indexOf('='),k=p.slice(0,i);
if(i>0&&f[k]){try{f[k].value=decodeURIComponent(p.slice(i+1));chosen=chosen||k==='status';}
catch(e){}}});apply(false);}
if(f){[f.dataset,f.score,f.status,f.sort].forEach(function(e){e.addEventListener('change',function(){
if(e===f.status){chosen=true;}apply(true);});});
f.q.addEventListener('input',function(){if(!chosen&&f.q.value.trim()){f.status.value='all';}
apply(true);});}
window.addEventListener('hashchange',route);apply(false);route();})();
"""
