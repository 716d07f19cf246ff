check examples/seed001.cu --kernel bank_conflict_test --fail-on 'excess>50%' --format json -o /dev/null
