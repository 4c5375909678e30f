// host/'s entry, written by scripts/build.mjs: the publish actions' one bundle (../index.js), run as host/.
globalThis.staticExportKind = 'host';
await import('../index.js');
