check examples/seed001.cu --kernel bank_conflict_test --fail-on 'ways>1' --fail-on ' excess > 10 % ' -o /dev/null
