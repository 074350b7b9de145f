console.log('redlock-inspector: CLI arrives with the inspector');
