console.log('demo arrives with the inspector');
