// renew/'s entry, written by scripts/build.mjs: the publish actions' one bundle (../index.js), run as renew/.
globalThis.staticExportKind = 'renew';
await import('../index.js');
