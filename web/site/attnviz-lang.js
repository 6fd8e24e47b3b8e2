// attnviz-lang.js: the page's sentences and the language of a view. Loaded first.
//   - the sentences the page itself shows (loading, errors before the app runs, link and
//     clipboard notices), one table per language; tests/i18n/check_catalogue.py fails
//     when a key is in one table and not the other, or their {0} placeholders differ.
//   - attnvizCore.language({initial, override, unknown, remember, apply}): one view's
//     language object {t, current, changed, continued, ...}. The page's
//     (attnviz-page.js) comes from ?lang=, the language used last in this browser or
//     navigator.languages, and is remembered; an embedded view's (web/embed) from the
//     mount options or navigator.languages, and is never written anywhere.
// The app's own text is in its catalogue (ui/app/text/i18n.h, lang_zh_cn.cpp).
// attnvizCore: the functions the page and the embedded views share (a global on the page;
// in the packed embed file a variable of its own, never window's).
'use strict';
var attnvizCore = (typeof attnvizCore !== 'undefined' && attnvizCore) || {};
(function (core) {
  const MESSAGES = {
  "en": {
    "title": "attnviz — see how attention computes",
    "canvas": "attnviz: attention visualizer",
    "loading.title": "Loading attnviz…",
    "loading.text": "Downloading and compiling the attention engine.",
    "loading.starting": "Starting…",
    "webgl.title": "attnviz needs WebGL2.",
    "webgl.text": "This browser or its settings do not provide WebGL2. Try a current Chrome, Firefox or Safari, and check that hardware acceleration is not disabled.",
    "abort.title": "attnviz stopped unexpectedly.",
    "abort.text": "The engine aborted ({0}). Reload the page; if it happens again, please report it.",
    "start.title": "attnviz could not start.",
    "start.noGraphics": "The graphics context could not start (WebGL2 is required).",
    "load.title": "attnviz could not load.",
    "load.text": "The file {0} did not download. Check the connection and reload.",
    "lang.unknown": "The address asks for language \"{0}\", which attnviz does not have: it speaks en (English) and zh-CN (简体中文).",
    "link.openFailed": "This link could not be opened: {0} The current state is kept.",
    "link.notLink": "it is not an attnviz share link (those end in #s{0}. followed by letters and digits).",
    "link.newer": "it was made by a newer attnviz (link format {0}); this page reads format {1}. Open it with the newer version.",
    "link.older": "it uses link format {0}, which this attnviz does not read (it reads format {1}).",
    "link.tooLong": "it is longer than 8 MB, more than any attnviz state needs.",
    "link.badChars": "it is damaged: it holds characters a share link never contains, or was cut in the middle.",
    "link.tooBig": "it would expand to more than 16 MB, more than any attnviz state needs.",
    "link.corrupt": "it is damaged: its compressed data is incomplete or corrupted (it may have been cut short when copied).",
    "link.notText": "it is damaged: it does not decode to text.",
    "link.makeFailed": "The share link could not be made: {0}",
    "link.copied": "Share link copied ({0} characters).",
    "link.tooBigHere": "This address holds no state: it was copied while attnviz showed a state too big for a share link (its explicit weights). Ask for the state as a file (File → Save state (.safetensors)) and open it with File → Open state….",
    "session.savedFailed": "The session saved in this browser could not be restored: {0}",
    "session.failed": "The session could not be restored: {0}",
    "clip.unreachable": "This page cannot reach the system clipboard (it needs https:// or localhost).",
    "clip.writeDenied": "The browser did not let attnviz write to the clipboard ({0}).",
    "clip.empty": "The clipboard holds no text to paste as a state.",
    "clip.unusable": "The clipboard does not hold a usable attnviz state: {0} The current state is kept.",
    "clip.pasted": "State pasted (Ctrl+Z undoes it).",
    "clip.pastedLink": "State pasted from a share link (Ctrl+Z undoes it).",
    "clip.readUnsupported": "This browser does not let the page read the clipboard; press Ctrl+V instead.",
    "clip.readDenied": "The browser did not let attnviz read the clipboard; press Ctrl+V instead.",
    "import.loading": "attnviz is still loading.",
    "import.pickerLabel": "Open an attnviz state file (.json or .safetensors)",
    "import.onlyFiles": "Only files can be dropped here: drop a .json state file (or a .safetensors one).",
    "weights.pickerLabel": "Open trained weights (.safetensors, .npz, or several .npy files together)",
    "embed.openPage": "Open as a page ↗",
    "embed.openPageTitle": "Open this view, as it is now, as a page of its own in a new tab (works offline)",
    "embed.stateRefused": "The state given to this view could not be opened: {0} It shows the default state instead.",
    "embed.stateFileName": "the state file given to this view",
    "embed.stateFileDamaged": "The state file given to this view could not be unpacked: it is not gzip-compressed base64 text, or it was cut short. The view shows the default state."
  },
  "zh-CN": {
    "title": "attnviz — 看注意力如何计算",
    "canvas": "attnviz：注意力可视化",
    "loading.title": "正在加载 attnviz…",
    "loading.text": "正在下载并编译注意力引擎。",
    "loading.starting": "正在启动…",
    "webgl.title": "attnviz 需要 WebGL2。",
    "webgl.text": "这个浏览器或其设置不提供 WebGL2。请使用新版 Chrome、Firefox 或 Safari，并确认没有关闭硬件加速。",
    "abort.title": "attnviz 意外停止。",
    "abort.text": "引擎中止了（{0}）。请刷新页面；如果再次发生，请报告这个问题。",
    "start.title": "attnviz 无法启动。",
    "start.noGraphics": "图形上下文无法启动（需要 WebGL2）。",
    "load.title": "attnviz 无法加载。",
    "load.text": "文件 {0} 没有下载成功。请检查网络连接后刷新。",
    "lang.unknown": "地址要求的语言“{0}”attnviz 没有：可选 en（English）或 zh-CN（简体中文）。",
    "link.openFailed": "无法打开这个链接：{0}当前状态保持不变。",
    "link.notLink": "这不是 attnviz 的分享链接（分享链接以 #s{0}. 加字母和数字结尾）。",
    "link.newer": "它由更新版本的 attnviz 生成（链接格式 {0}）；本页面读取格式 {1}。请用新版本打开。",
    "link.older": "它使用链接格式 {0}，这个 attnviz 不再读取（它读取格式 {1}）。",
    "link.tooLong": "它超过 8 MB，比任何 attnviz 状态需要的都长。",
    "link.badChars": "链接已损坏：含有分享链接中不会出现的字符，或在中间被截断。",
    "link.tooBig": "它展开后会超过 16 MB，比任何 attnviz 状态需要的都大。",
    "link.corrupt": "链接已损坏：压缩数据不完整或已损坏（复制时可能被截短了）。",
    "link.notText": "链接已损坏：解码后不是文本。",
    "link.makeFailed": "无法生成分享链接：{0}",
    "link.copied": "已复制分享链接（{0} 个字符）。",
    "link.tooBigHere": "这个地址不含任何状态：复制它时 attnviz 显示的状态太大（其中的显式权重），无法放进分享链接。请向对方要这个状态的文件（文件 → 保存状态（.safetensors）），再用 文件 → 打开状态… 打开。",
    "session.savedFailed": "无法恢复这个浏览器中保存的会话：{0}",
    "session.failed": "无法恢复会话：{0}",
    "clip.unreachable": "本页面无法访问系统剪贴板（需要 https:// 或 localhost）。",
    "clip.writeDenied": "浏览器不允许 attnviz 写入剪贴板（{0}）。",
    "clip.empty": "剪贴板里没有可以作为状态粘贴的文本。",
    "clip.unusable": "剪贴板里没有可用的 attnviz 状态：{0}当前状态保持不变。",
    "clip.pasted": "已粘贴状态（Ctrl+Z 可撤销）。",
    "clip.pastedLink": "已从分享链接粘贴状态（Ctrl+Z 可撤销）。",
    "clip.readUnsupported": "这个浏览器不允许页面读取剪贴板；请改按 Ctrl+V。",
    "clip.readDenied": "浏览器不允许 attnviz 读取剪贴板；请改按 Ctrl+V。",
    "import.loading": "attnviz 仍在加载。",
    "import.pickerLabel": "打开 attnviz 状态文件（.json 或 .safetensors）",
    "import.onlyFiles": "这里只能拖入文件：请拖入 .json 状态文件（或 .safetensors 状态文件）。",
    "weights.pickerLabel": "打开训练好的权重（.safetensors、.npz，或一起选中的多个 .npy 文件）",
    "embed.openPage": "在新页面中打开 ↗",
    "embed.openPageTitle": "在新标签页中把这个视图按当前状态打开为独立页面（无需联网）",
    "embed.stateRefused": "无法打开提供给这个视图的状态：{0}视图改为显示默认状态。",
    "embed.stateFileName": "提供给这个视图的状态文件",
    "embed.stateFileDamaged": "无法解压提供给这个视图的状态文件：它不是经 gzip 压缩的 base64 文本，或者被截短了。视图显示默认状态。"
  }
};

  const CODES = ['en', 'zh-CN'];
  // A BCP 47 tag → 'en', 'zh-CN' or null (as lang_from_code in ui/app/text/i18n.cpp).
  function normalize(tag) {
    const t = String(tag || '').trim().toLowerCase().replace(/_/g, '-');
    const primary = t.split('-')[0];
    if (primary === 'en' && (t === 'en' || t.length > 3)) return 'en';
    if (primary === 'zh' && (t === 'zh' || t.length > 3)) return 'zh-CN';
    return null;
  }
  // The browser's first language attnviz speaks, else English.
  const preferred = () => (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language])
    .map(normalize).find((x) => x) || 'en';

  // One view's language. `remember(code)` and `apply(lang)` are called when it changes
  // (View → Language, a link); `apply` also once now.
  function language({ initial, override = null, unknown = null, remember = null, apply = null }) {
    let current = normalize(initial) || preferred();
    // The sentence for `key` in the current language, {0} {1} ... replaced by args.
    function t(key, ...args) {
      const table = MESSAGES[current] || MESSAGES.en;
      const text = key in table ? table[key] : MESSAGES.en[key] || key;
      return text.replace(/\{(\d)\}/g, (m, n) => (n < args.length ? String(args[n]) : m));
    }
    const lang = {
      t,
      codes: CODES,
      get current() { return current; },
      override,                       // 'en' / 'zh-CN' from ?lang=, or null
      unknown,                        // ?lang= with a code attnviz lacks, or null
      changed(code) {
        if (!normalize(code)) return;
        current = normalize(code);
        if (remember) remember(current);
        if (apply) apply(lang);
      },
      // Lower-cases a sentence's first letter to continue another one ("…: it is not").
      continued: (s) => (current === 'en' && s ? s.charAt(0).toLowerCase() + s.slice(1) : s),
    };
    if (apply) apply(lang);
    return lang;
  }

  core.language = language;
  core.normalizeLanguage = normalize;
  core.preferredLanguage = preferred;
})(attnvizCore);
